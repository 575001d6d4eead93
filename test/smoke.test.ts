import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessToken, createStore, get } from './support/fixtures.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('mints a token and reads products', async () => {
    const store = await createStore(t.app, { seedCatalogue: true, productCount: 10 });
    const token = await accessToken(t.app, store.key);
    const response = await get(t.app, '/v1/catalogue/products?limit=3', token);
    expect(response.statusCode).toBe(200);
    expect(response.json().items).toHaveLength(3);
  });
});
