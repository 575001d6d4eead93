import { beforeAll, describe, expect, it } from 'vitest';
import { activeDrop, HUB } from '../data-hub/hub-fixtures.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { accessToken, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { sendRaw } from '../support/problem.js';

/**
 * Every answer says what it is (issue 24, item 9): `X-Content-Type-Options: nosniff` on API JSON,
 * problem documents, files, the interactive docs and their document, and the refusals Node's parser
 * answers on the socket, as on the dashboard's pages, so that no browser reads one as a script or a page.
 */
describe('X-Content-Type-Options: nosniff on every answer', () => {
  const t = useTestApp();
  let store: TestStore;
  let token: string;
  let owner: string;

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 3 });
    token = await accessToken(t.app, store.key);
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
  });

  it('on JSON, problem documents, files and the docs of both APIs', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const products = await t.app.inject({ method: 'GET', url: '/v1/catalogue/products', headers: bearer });
    const { upload, id: drop } = await activeDrop(t.app, owner, 'nosniff');
    await upload('prices.csv', 'sku,price\nA-1,10\n');
    const answers = {
      'health JSON': await t.app.inject({ method: 'GET', url: '/health/live' }),
      'token mint (201)': await t.app.inject({ method: 'POST', url: '/v1/auth/anonymous', headers: { 'x-api-key': store.key } }),
      'catalogue page': products,
      'catalogue page not modified (304)': await t.app.inject({
        method: 'GET',
        url: '/v1/catalogue/products',
        headers: { ...bearer, 'if-none-match': products.headers.etag as string },
      }),
      'storefront problem (401)': await t.app.inject({ method: 'GET', url: '/v1/cart' }),
      'storefront problem (404)': await t.app.inject({ method: 'GET', url: '/v1/no-such-thing' }),
      'dashboard JSON': await adminCall(t.app, 'GET', '/admin/auth/me', owner),
      'dashboard problem (401)': await adminCall(t.app, 'GET', '/admin/auth/me', undefined),
      'dashboard file download': await adminCall(t.app, 'GET', `${HUB}/connections/${drop}/files/prices.csv`, owner),
      'docs page': await t.app.inject({ method: 'GET', url: '/docs' }),
      'docs redirect': await t.app.inject({ method: 'GET', url: '/docs/' }),
      'docs script': await t.app.inject({ method: 'GET', url: '/docs/swagger-ui-bundle.js' }),
      'OpenAPI document': await t.app.inject({ method: 'GET', url: '/docs/openapi.json' }),
      'undecodable address': await t.app.inject({ method: 'GET', url: '/v1/catalogue/products/%E0%A4%A' }),
      'dashboard page': await t.app.inject({ method: 'GET', url: '/admin/' }),
    };
    expect(answers['catalogue page not modified (304)'].statusCode).toBe(304);
    expect(answers['dashboard file download'].statusCode).toBe(200);
    for (const [name, answer] of Object.entries(answers)) expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
  });

  it('on the refusals Node’s parser answers on the socket', async () => {
    const refused = await sendRaw(await t.listen(), 'GET /health/live HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });
});
