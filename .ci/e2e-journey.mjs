// End-to-end shopper journey against a running service: node .ci/e2e-journey.mjs BASE_URL API_KEY
// Mint, browse, search in Arabic, add to cart, choose pickup, quote, place a cash-on-delivery order,
// retry it with the same Idempotency-Key, and find it in the order list. Exits non-zero on the first surprise.
const [base, apiKey] = process.argv.slice(2);

async function call(method, path, { token, body, headers = {}, expect }) {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : null;
}

const step = (message) => process.stdout.write(`--- ${message}\n`);

const { accessToken: token } = await call('POST', '/v1/auth/anonymous', { headers: { 'x-api-key': apiKey }, body: {}, expect: 201 });
const page = await call('GET', '/v1/catalogue/products?limit=5', { token, expect: 200 });
step(`browsed ${page.items.length} products, first ${page.items[0].slug}`);
const found = await call('GET', `/v1/search?q=${encodeURIComponent(page.items[0].name.ar)}`, { token, expect: 200 });
if (!found.items.some((item) => item.id === page.items[0].id)) throw new Error('searching a product’s Arabic name did not find it');
step(`search for its Arabic name: ${found.total} results`);
const variant = page.items[0].variants.find((candidate) => candidate.stock > 0);
const cart = await call('POST', '/v1/cart/items', { token, body: { variantId: variant.id, quantity: 1 }, expect: 200 });
step(`cart: ${cart.itemCount} item, subtotal ${cart.subtotal} ${cart.currency}`);
const options = await call('POST', '/v1/checkout/quote', { token, body: {}, expect: 200 });
const quote = await call('POST', '/v1/checkout/fulfilment', {
  token,
  body: { type: 'pickup', pickupLocationId: options.options.pickup[0].id },
  expect: 200,
});
step(`quote: total ${quote.total} ${quote.currency}, tax ${quote.tax} (${quote.taxIncluded ? 'included' : 'added'})`);
const placement = { token, headers: { 'idempotency-key': `ci-${Date.now()}` }, body: { paymentMethod: 'cash_on_delivery', email: 'ci@example.com' }, expect: 201 };
const order = await call('POST', '/v1/checkout/orders', placement);
const retried = await call('POST', '/v1/checkout/orders', placement);
if (retried.id !== order.id) throw new Error('a retry with the same Idempotency-Key placed a second order');
const orders = await call('GET', '/v1/orders', { token, expect: 200 });
if (orders.items[0]?.id !== order.id) throw new Error('the placed order is not first in the order list');
step(`order ${order.number} placed (total ${order.total} ${order.currency}), retry answered the same order, listed first`);
