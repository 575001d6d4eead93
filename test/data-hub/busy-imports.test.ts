import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunsService } from '../../src/data-hub/runs/runs.service.js';
import { addStaff, adminCall, staffToken } from '../support/dashboard.js';
import { accessToken, type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';
import { ok } from '../support/responses.js';
import { activeDrop, HUB } from './hub-fixtures.js';

const ROWS = 200_000;
const POLL_MS = 20;
const ANSWER_MS = 100;
const WORST_MS = 500;
/**
 * Asks each of the targets in argv[1] (`[{ url, headers }]`) in turn, then waits argv[2] ms, until its
 * standard input ends: a line `{ target, status, ms }` per answer. A first round opens the connections
 * and is not counted; `ready` says it is done.
 */
const POLLER = `
const [targets, pause] = [JSON.parse(process.argv[1]), Number(process.argv[2])];
const ask = async ({ url, headers }) => {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
};
for (const target of targets) await ask(target);
process.stdout.write('ready\\n');
let polling = true;
process.stdin.on('end', () => (polling = false)).resume();
while (polling) {
  for (const [target, request] of targets.entries()) process.stdout.write(JSON.stringify({ target, ...(await ask(request)) }) + '\\n');
  await new Promise((resolve) => setTimeout(resolve, pause));
}`;

/**
 * While a large file is previewed and imported, the service goes on answering: the rows are read and
 * mapped on the thread that serves requests, which yields between batches (issue 24, item 2).
 */
describe('data hub imports of a large file leave the event loop to requests', () => {
  const t = useTestApp();
  let store: TestStore;
  let owner: string;
  let flowId: string;
  let shopperToken: string;
  let base: string;
  const call = (method: string, url: string, body?: unknown) => adminCall(t.app, method, url, owner, body);

  beforeAll(async () => {
    store = await t.store({ seedCatalogue: true, productCount: 20 });
    owner = await staffToken(t.app, await addStaff(t.app, store.storeId, 'owner'));
    shopperToken = await accessToken(t.app, store.key);
    base = await t.listen();
    // The file's variants belong to draft products: the storefront lists the active ones, whose reads stay the same size.
    const products = (
      await t.db.rows<{ slug: string }>(
        `update products set status = 'draft' where id in (select id from products where store_id = $1 order by slug limit 10) returning slug`,
        [store.storeId],
      )
    ).map((row) => row.slug);
    const { id: drop, upload } = await activeDrop(t.app, owner, 'variants');
    const rows = Array.from(
      { length: ROWS },
      (_, index) => ` b ${index} ,${products[index % products.length].toUpperCase()},${10 + (index % 90)}.50,${index % 40}`,
    );
    await upload('variants-big.csv', ['sku,product,price,stock', ...rows].join('\n') + '\n');
    const mapping = ok(
      await call('POST', `${HUB}/mappings`, {
        name: 'Variants',
        structure: 'variants',
        direction: 'import',
        fields: [
          {
            target: 'sku',
            source: 'sku',
            transforms: [
              { name: 'trim' },
              { name: 'uppercase' },
              { name: 'regex_replace', args: { pattern: '[^A-Z0-9]+', replacement: '-' } },
            ],
          },
          { target: 'product', source: 'product', transforms: [{ name: 'trim' }, { name: 'lowercase' }] },
          { target: 'price', source: 'price', transforms: [{ name: 'to_decimal_minor' }] },
          { target: 'stock', source: 'stock', transforms: [{ name: 'to_integer' }] },
        ],
      }),
      201,
    ).id;
    flowId = ok(
      await call('POST', `${HUB}/flows`, {
        name: 'Variants',
        connectionId: drop,
        mappingId: mapping,
        direction: 'import',
        format: 'csv',
        fileTemplate: 'variants-big.csv',
      }),
      201,
    ).id;
  }, 120_000);

  /**
   * Asks /health/live and a storefront read over real HTTP every POLL_MS, from a process of its own (as a
   * load balancer's health check and a shopper's browser do), until `work` settles: how long each answer took.
   */
  async function whileAnswering<T>(work: () => Promise<T>) {
    const targets = [
      { url: `${base}/health/live`, headers: {} },
      { url: `${base}/v1/catalogue/products?limit=5`, headers: { authorization: `Bearer ${shopperToken}` } },
    ];
    const poller = spawn(process.execPath, ['--input-type=module', '-e', POLLER, JSON.stringify(targets), String(POLL_MS)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: poller.stdout });
    const answers: { target: number; status: number; ms: number }[] = [];
    const exited = once(poller, 'exit');
    const [ready] = await once(lines, 'line');
    expect(ready).toBe('ready');
    lines.on('line', (line: string) => answers.push(JSON.parse(line)));
    const result = await work().finally(() => poller.stdin.end());
    await exited;
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    const times = (target: number) =>
      answers
        .filter((answer) => answer.target === target)
        .map((answer) => answer.ms)
        .sort((a, b) => a - b);
    const p99 = (target: number) => times(target)[Math.ceil(times(target).length * 0.99) - 1];
    const worst = (target: number) => times(target).at(-1)!;
    return { result, answers: answers.length / 2, health: p99(0), storefront: p99(1), worst: Math.max(worst(0), worst(1)) };
  }

  it(`answers /health/live and a storefront read within ${ANSWER_MS} ms (99 in 100; none past ${WORST_MS} ms) throughout a preview and a run of ${ROWS.toLocaleString('en')} rows`, async () => {
    const preview = await whileAnswering(async () => ok(await call('POST', `${HUB}/flows/${flowId}/runs`, { preview: true })));
    expect(preview.result).toMatchObject({ status: 'succeeded', counts: { read: ROWS, created: ROWS, rejected: 0 } });
    const run = await whileAnswering(async () => {
      const queued = ok(await call('POST', `${HUB}/flows/${flowId}/runs`, {}), 202);
      await t.app.get(RunsService).execute(queued.id);
      return ok(await call('GET', `${HUB}/runs/${queued.id}`));
    });
    expect(run.result).toMatchObject({ status: 'succeeded', counts: { read: ROWS, created: ROWS } });
    for (const [name, { answers, health, storefront, worst }] of Object.entries({ preview, run }))
      console.log(
        `${ROWS} rows, ${name}: ${answers} rounds of answers; 99th percentile /health/live ${health.toFixed(0)} ms, ` +
          `storefront read ${storefront.toFixed(0)} ms; the slowest ${worst.toFixed(0)} ms`,
      );
    expect(preview.answers).toBeGreaterThan(20);
    // The 99th percentile, not the slowest: on CI's two cores, shared with another test file and PostgreSQL, a
    // single answer can wait for the CPU (190 ms once) however often the import yields. A loop held for a
    // whole batch would show in hundreds of answers, and the slowest is still bounded.
    expect(Math.max(preview.health, preview.storefront, run.health, run.storefront)).toBeLessThan(ANSWER_MS);
    expect(Math.max(preview.worst, run.worst)).toBeLessThan(WORST_MS);
  }, 120_000);
});
