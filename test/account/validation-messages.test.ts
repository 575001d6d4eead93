import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness.js';
import type { StorefrontClient } from '../support/storefront-client.js';

const GENERIC_ARABIC = 'القيمة غير صالحة.';

/** Every refusal a shopper reads exists in Arabic too: no field error falls back to the generic text. */
describe('validation messages in both languages', () => {
  const t = useTestApp();
  let shopper: StorefrontClient;
  beforeAll(async () => {
    shopper = await t.shopper(await t.store());
  });

  it('explains a bad email, flag and nested address in Arabic', async () => {
    const register = await shopper.call('POST', '/v1/account/register', {
      email: 'not-an-email',
      password: 'long enough password',
      marketingOptIn: 'yes',
    });
    const fulfilment = await shopper.call('POST', '/v1/checkout/fulfilment', {
      type: 'delivery',
      shippingMethod: 'standard',
      address: 'Riyadh',
    });
    const errors = [...register.json().errors, ...fulfilment.json().errors];
    expect(errors.map((error: { code: string }) => error.code)).toEqual(expect.arrayContaining(['isEmail', 'isBoolean', 'isObject']));
    for (const error of errors) {
      expect(error.message_ar, `${error.field} ${error.code}`).not.toBe(GENERIC_ARABIC);
      expect(error.message_en, `${error.field} ${error.code}`).not.toMatch(/^[a-z]+ must/);
    }
  });
});
