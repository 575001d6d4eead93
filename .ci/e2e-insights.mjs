// End-to-end Insights as the demo store's owner: node .ci/e2e-insights.mjs BASE_URL STORE_ID EMAIL PASSWORD
// Signs in to the dashboard, asks what a merchant asks (this month against the last, what sold, who bought, what
// was late, where shoppers dropped out), runs a custom report, and waits for the order the shopper journey just
// placed to show in today's figures; exports a year's products as an Arabic spreadsheet and downloads it, and has a
// saved report delivered to the outbox. Exits non-zero on the first surprise.
const [base, storeId, email, password] = process.argv.slice(2);

async function call(method, path, { token, body, expect = 200, headers = {} } = {}) {
  const response = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path} answered ${response.status} (expected ${expect}): ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

const step = (message) => process.stdout.write(`--- ${message}\n`);
const today = new Date().toISOString().slice(0, 10);

const { accessToken: token } = await call('POST', '/admin/auth/sign-in', { body: { storeId, email, password }, expect: 201 });
const me = await call('GET', '/admin/auth/me', { token });
step(`signed in as ${me.staff.email} (${me.staff.role}) of "${me.store.name}" on the ${me.store.plan} plan`);

const month = await call('GET', `/admin/insights/reports/overview?from=${today.slice(0, 8)}01&to=${today}&compare=previous_period`, { token });
step(`this month: net sales ${month.totals.net_sales} ${month.currency}, ${month.totals.orders} orders; the period before: ${month.compareTotals.net_sales}, ${month.compareTotals.orders}`);
const year = await call('GET', '/admin/insights/reports/overview?last=366', { token });
if (!(year.totals.orders > 0 && year.totals.net_sales > 0 && year.totals.customers > 0)) throw new Error(`a year of the demo store has no sales: ${JSON.stringify(year.totals)}`);
if (year.series.length < 50) throw new Error(`the weekly series of a year has ${year.series.length} points`);

const products = await call('GET', '/admin/insights/reports/products?last=90&limit=3', { token });
if (products.rows.length !== 3 || !products.rows[0].labels.product.ar) throw new Error('the products report names no products');
step(`best seller of 90 days: ${products.rows[0].labels.product.en} / ${products.rows[0].labels.product.ar}, net ${products.rows[0].net_sales}`);
const customers = await call('GET', '/admin/insights/reports/top_customers?last=90&limit=3', { token });
step(`best customer of 90 days: ${customers.rows[0].labels.customer.en}, ${customers.rows[0].orders} orders`);
const late = await call('GET', '/admin/insights/reports/late_orders?last=90&limit=3', { token });
step(`late orders due in 90 days: ${late.totals.late_orders}, on time ${Math.round(late.totals.on_time_rate * 100)} %, still open past the promise ${late.totals.open_past_promise}`);
const funnel = await call('GET', '/admin/insights/reports/funnel?last=30', { token });
step(`funnel of 30 days: ${funnel.rows.map((row) => `${row.step} ${row.step_sessions}`).join(' → ')}`);
const built = await call('POST', '/admin/insights/builder/run', {
  token,
  body: { measures: ['net_sales', 'units_sold'], dimensions: ['month', 'category'], last: 180, sort: '-net_sales', limit: 5 },
});
step(`builder: ${built.rowCount} rows, first ${built.rows[0].month} ${built.rows[0].labels.category.en} ${built.rows[0].net_sales}`);

// The journey placed an order a moment ago: it shows in today's figures once folded in (5 s settling, then within a second).
const deadline = Date.now() + 60_000;
for (;;) {
  const status = await call('GET', '/admin/insights/status', { token });
  const todays = await call('GET', '/admin/insights/reports/overview?last=1', { token });
  if (status.lagSeconds === 0 && todays.totals.orders >= 1) {
    step(`today: ${todays.totals.orders} order(s) in the figures; data as of ${status.dataAsOf}`);
    break;
  }
  if (Date.now() > deadline) throw new Error(`today's order is not in the figures after 60 s: ${JSON.stringify(status)}`);
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

// A year of products as XLSX with an Arabic header, written in the background and downloaded.
const started = await call('POST', '/admin/insights/exports', {
  token,
  body: { source: { report: 'products', params: { last: 366 } }, format: 'xlsx' },
  headers: { 'accept-language': 'ar' },
  expect: 202,
});
const exportDeadline = Date.now() + 60_000;
let exported = started;
while (exported.status !== 'succeeded') {
  if (exported.status === 'failed' || Date.now() > exportDeadline) throw new Error(`the export did not succeed: ${JSON.stringify(exported)}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
  exported = await call('GET', `/admin/insights/exports/${started.id}`, { token });
}
const file = await fetch(`${base}/admin/insights/exports/${started.id}/file`, { headers: { authorization: `Bearer ${token}` } });
const bytes = Buffer.from(await file.arrayBuffer());
if (file.status !== 200 || bytes.length !== exported.file.bytes || bytes.subarray(0, 2).toString('latin1') !== 'PK') {
  throw new Error(`the export's file: ${file.status}, ${bytes.length} bytes of ${exported.file.bytes}, starting ${bytes.subarray(0, 2).toString('hex')}`);
}
step(`export: ${exported.progress.rows} products in ${exported.file.name} (${bytes.length} bytes), ${file.headers.get('content-type')}`);

// A saved report delivered now, by email: on the zero-configuration default the outbox keeps it.
const saved = await call('POST', '/admin/insights/saved-reports', {
  token,
  body: { name: 'Last week', definition: { report: 'overview', params: { last: 7 } } },
  expect: 201,
});
const schedule = await call('POST', '/admin/insights/schedules', {
  token,
  body: {
    savedReportId: saved.id,
    name: 'Monday sales',
    cadence: { frequency: 'weekly', weekday: 'monday', time: '08:00' },
    format: 'csv',
    destination: { kind: 'email', recipients: [email] },
  },
  expect: 201,
});
await call('POST', `/admin/insights/schedules/${schedule.id}/deliveries`, { token, expect: 202 });
const deliveryDeadline = Date.now() + 60_000;
for (;;) {
  const [delivery] = (await call('GET', `/admin/insights/schedules/${schedule.id}/deliveries`, { token })).items;
  if (delivery.status === 'delivered') {
    step(`delivery: ${delivery.rows} rows to ${delivery.sentTo.join(', ')}; next due ${schedule.nextRunAt}`);
    break;
  }
  if (delivery.status === 'failed' || Date.now() > deliveryDeadline) throw new Error(`the delivery did not go out: ${JSON.stringify(delivery)}`);
  await new Promise((resolve) => setTimeout(resolve, 500));
}
