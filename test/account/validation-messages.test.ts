import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, session } from './helpers.js';

const GENERIC_ARABIC = 'القيمة غير صالحة.';

/** Every refusal a shopper reads exists in Arabic too: no field error falls back to the generic text. */
describe('validation messages in both languages', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp();
    const store = await createStore(t.app);
    token = (await session(t.app, store.key)).token;
  });
  afterAll(() => t.close());

  it('explains a bad email, flag and nested address in Arabic', async () => {
    const register = await call(t.app, 'POST', '/v1/account/register', token, {
      email: 'not-an-email',
      password: 'long enough password',
      marketingOptIn: 'yes',
    });
    const fulfilment = await call(t.app, 'POST', '/v1/checkout/fulfilment', token, {
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
