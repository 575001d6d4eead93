import { describe, expect, it } from 'vitest';
import { accessToken, get } from './support/fixtures.js';
import { useTestApp } from './support/harness.js';

describe('smoke', () => {
  const t = useTestApp();

  it('mints a token and reads products', async () => {
    const store = await t.store({ seedCatalogue: true, productCount: 10 });
    const token = await accessToken(t.app, store.key);
    const response = await get(t.app, '/v1/catalogue/products?limit=3', token);
    expect(response.statusCode).toBe(200);
    expect(response.json().items).toHaveLength(3);
  });
});
