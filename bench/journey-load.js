// The shopper journey as load: concurrent shoppers, each on its own keep-alive connection, going
// through mint, browse, search, product, add to cart, quote, choose pickup, place the order and list
// orders again and again, every step's latency recorded after the warm-up. Used by bench/journey.js
// (the journey bench) and bench/insights.js (order placement with and without Insights' change capture).

/** What shoppers type: both languages, a typo and a prefix, drawn from the demo catalogue's vocabulary. */
export const SEARCH_TERMS = ['shirt', 'قميص', 'shoes', 'أحذية', 'watch', 'ساعة', 'shrit', 'حقيبة', 'dress', 'فستان', 'jacket', 'عطر'];

export const STEPS = ['mint', 'browse', 'search', 'product', 'addToCart', 'quote', 'fulfilment', 'placeOrder', 'orders'];

export class Recorder {
  constructor() {
    this.samples = Object.fromEntries(STEPS.map((step) => [step, []]));
    this.failures = Object.fromEntries(STEPS.map((step) => [step, {}]));
    this.journeys = 0;
    this.recording = false;
  }

  record(step, ms, status, ok) {
    if (!this.recording) return;
    if (ok) this.samples[step].push(ms);
    else this.failures[step][status] = (this.failures[step][status] ?? 0) + 1;
  }
}

/** One shopper going through the journey again and again until `until`. */
export async function shopper(base, apiKey, recorder, until, index) {
  let round = 0;
  while (Date.now() < until) {
    round += 1;
    const call = async (step, method, path, { token, body, headers = {}, expect = 200 } = {}) => {
      const started = performance.now();
      let response;
      let text;
      try {
        response = await fetch(base + path, {
          method,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(body ? { 'content-type': 'application/json' } : {}),
            'accept-encoding': 'gzip, deflate, br',
            ...headers,
          },
          body: body ? JSON.stringify(body) : undefined,
        });
        text = await response.text();
      } catch (error) {
        // No answer at all (connection refused or reset): a failure of the step too.
        recorder.record(step, performance.now() - started, 'network', false);
        throw new Error(`${step}: ${error.cause?.code ?? error.message}`);
      }
      const ms = performance.now() - started;
      const ok = response.status === expect;
      recorder.record(step, ms, response.status, ok);
      if (!ok) throw new Error(`${step}: ${response.status} ${text.slice(0, 300)}`);
      return text ? JSON.parse(text) : null;
    };
    try {
      const session = await call('mint', 'POST', '/v1/auth/anonymous', { headers: { 'x-api-key': apiKey }, body: {}, expect: 201 });
      const token = session.accessToken;
      const page = await call('browse', 'GET', '/v1/catalogue/products?limit=20', { token });
      const term = SEARCH_TERMS[(index + round) % SEARCH_TERMS.length];
      const found = await call('search', 'GET', `/v1/search?q=${encodeURIComponent(term)}&limit=20`, { token });
      const candidates = found.items.length > 0 ? found.items : page.items;
      const chosen = candidates[(index * 7 + round) % candidates.length];
      const product = await call('product', 'GET', `/v1/catalogue/products/${encodeURIComponent(chosen.slug)}`, { token });
      const variant = product.variants[round % product.variants.length];
      await call('addToCart', 'POST', '/v1/cart/items', { token, body: { variantId: variant.id, quantity: 1 } });
      const quote = await call('quote', 'POST', '/v1/checkout/quote', { token, body: {} });
      const pickup = quote.options.pickup[0];
      await call('fulfilment', 'POST', '/v1/checkout/fulfilment', { token, body: { type: 'pickup', pickupLocationId: pickup.id } });
      await call('placeOrder', 'POST', '/v1/checkout/orders', {
        token,
        headers: { 'idempotency-key': `bench-${index}-${round}-${session.sessionId}` },
        body: { paymentMethod: 'cash_on_delivery', email: `shopper${index}@bench.example` },
        expect: 201,
      });
      await call('orders', 'GET', '/v1/orders', { token });
      if (recorder.recording) recorder.journeys += 1;
    } catch (error) {
      if (recorder.recording && recorder.lastError === undefined) recorder.lastError = error.message;
    }
  }
}

/**
 * `shoppers` concurrent shoppers for `warmupSeconds` (not recorded) and then `seconds` (recorded).
 * Answers the recorder and the measured window's length in seconds.
 */
export async function runJourneys(base, apiKey, { shoppers, seconds, warmupSeconds }) {
  const recorder = new Recorder();
  const until = Date.now() + (warmupSeconds + seconds) * 1000;
  const startRecording = setTimeout(() => {
    recorder.recording = true;
    recorder.recordingStartedAt = performance.now();
  }, warmupSeconds * 1000);
  await Promise.all(Array.from({ length: shoppers }, (_, index) => shopper(base, apiKey, recorder, until, index)));
  clearTimeout(startRecording);
  const measuredSeconds = (performance.now() - recorder.recordingStartedAt) / 1000;
  return { recorder, measuredSeconds };
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return Number(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)].toFixed(2));
}

/** Per step: requests, req/s over the measured window, p50/p95/p99/max and the failures by status. */
export function stepSummaries(recorder, measuredSeconds) {
  const steps = {};
  for (const step of STEPS) {
    const sorted = recorder.samples[step].sort((a, b) => a - b);
    steps[step] = {
      requests: sorted.length,
      rps: sorted.length / measuredSeconds,
      latencyMs: { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), max: percentile(sorted, 100) },
      failures: recorder.failures[step],
    };
  }
  return steps;
}
