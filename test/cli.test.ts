import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCOPES } from '../src/common/scopes.js';
import { buildOnce, ROOT } from './support/build.js';
import { type CliRun, cliRun, runCli } from './support/cli.js';
import { mint } from './support/fixtures.js';
import { expectProblem } from './support/problem.js';
import { useTestApp } from './support/harness.js';
import { UUID } from './support/formats.js';
import { TEST_SECRET_KEY } from './support/test-app.js';

const KEY = /^sk_live_[A-Za-z0-9]{40}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const cli = Object.assign((...args: string[]) => runCli(args), {
  withEnv: (env: Record<string, string>, ...args: string[]) => runCli(args, env),
});

function expectSuccess(run: CliRun): any {
  expect(run.code, run.stderr || run.stdout).toBe(0);
  expect(run.json, `stdout is not JSON: ${run.stdout}`).toBeDefined();
  return run.json;
}

function expectFailure(run: CliRun, exitCode: number, code: string): void {
  expect(run.code, run.stdout).toBe(exitCode);
  expect(run.json, `stdout is not JSON: ${run.stdout}`).toEqual({ error: { code, message: expect.any(String) } });
  expect(run.json.error.message.length).toBeGreaterThan(5);
  expect(run.stderr).toContain(run.json.error.message.split('\n')[0]);
  expect(run.stdout).not.toMatch(/\bat \S+ \(/);
}

describe('command line (contract section 3)', () => {
  const t = useTestApp();
  let store: { id: string; name: string; plan: string };
  let firstKey: { id: string; key: string };
  let issued: { id: string; key: string };

  beforeAll(async () => {
    await buildOnce();
  }, 120_000);

  it('store create prints exactly the store and its first key', async () => {
    const out = expectSuccess(await cli('store', 'create', '--name', 'CLI Store', '--plan', 'growth'));
    expect(Object.keys(out)).toEqual(['store', 'apiKey']);
    expect(Object.keys(out.store).sort()).toEqual(['id', 'name', 'plan']);
    expect(Object.keys(out.apiKey).sort()).toEqual(['id', 'key', 'rateLimitPerMinute', 'scopes']);
    expect(out.store).toEqual({ id: expect.stringMatching(UUID), name: 'CLI Store', plan: 'growth' });
    expect(out.apiKey).toEqual({
      id: expect.stringMatching(UUID),
      key: expect.stringMatching(KEY),
      rateLimitPerMinute: 600,
      scopes: [...SCOPES],
    });
    store = out.store;
    firstKey = out.apiKey;

    const { rows } = await t.db.query('select name, plan from stores where id = $1', [store.id]);
    expect(rows).toEqual([{ name: 'CLI Store', plan: 'growth' }]);
  });

  it('keeps only a 64-hex hash of the key in the database', async () => {
    const { rows } = await t.db.query('select key_hash, display_prefix, row_to_json(k)::text as whole from api_keys k where id = $1', [
      firstKey.id,
    ]);
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].key_hash).toBe(sha256(firstKey.key));
    expect(rows[0].whole).not.toContain(firstKey.key);
    expect(rows[0].whole).not.toContain(firstKey.key.slice(12));
    expect(rows[0].display_prefix).toBe(firstKey.key.slice(0, 12));
  });

  it('the key it prints opens a session on the running service', async () => {
    const response = await mint(t.app, firstKey.key);
    expect(response.statusCode).toBe(201);
  });

  it('key issue prints a new key with the given limit and scopes', async () => {
    const out = expectSuccess(await cli('key', 'issue', '--store', store.id, '--rate-limit', '50', '--scopes', 'catalogue:read,cart:read'));
    expect(Object.keys(out)).toEqual(['apiKey']);
    expect(Object.keys(out.apiKey).sort()).toEqual(['id', 'key', 'rateLimitPerMinute', 'scopes']);
    expect(out.apiKey).toEqual({
      id: expect.stringMatching(UUID),
      key: expect.stringMatching(KEY),
      rateLimitPerMinute: 50,
      scopes: ['catalogue:read', 'cart:read'],
    });
    expect(out.apiKey.key).not.toBe(firstKey.key);
    issued = out.apiKey;
    const { rows } = await t.db.query('select key_hash, scopes, rate_limit_per_minute, store_id from api_keys where id = $1', [issued.id]);
    expect(rows).toEqual([
      { key_hash: sha256(issued.key), scopes: ['catalogue:read', 'cart:read'], rate_limit_per_minute: 50, store_id: store.id },
    ]);

    const session = await mint(t.app, issued.key);
    expect(session.statusCode).toBe(201);
    expect(session.json().scope).toEqual(['catalogue:read', 'cart:read']);
  });

  it('key list shows the keys, never a key or its hash', async () => {
    const run = await cli('key', 'list', '--store', store.id);
    const out = expectSuccess(run);
    expect(Object.keys(out)).toEqual(['apiKeys']);
    expect(out.apiKeys.map((key: { id: string }) => key.id)).toEqual([firstKey.id, issued.id]);
    for (const key of out.apiKeys) {
      expect(Object.keys(key).sort()).toEqual(['createdAt', 'displayPrefix', 'id', 'rateLimitPerMinute', 'revokedAt', 'scopes']);
      expect(key.displayPrefix).toMatch(/^sk_live_[A-Za-z0-9]{4}$/);
      expect(key.revokedAt).toBeNull();
    }
    expect(out.apiKeys[1]).toMatchObject({ rateLimitPerMinute: 50, scopes: ['catalogue:read', 'cart:read'] });
    for (const secret of [
      firstKey.key,
      issued.key,
      sha256(firstKey.key),
      sha256(issued.key),
      firstKey.key.slice(12),
      issued.key.slice(12),
    ]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
  });

  it('key revoke prints the id and revocation time, and the running service refuses the key at once', async () => {
    const out = expectSuccess(await cli('key', 'revoke', '--key', issued.id));
    expect(out).toEqual({ apiKey: { id: issued.id, revokedAt: expect.stringMatching(ISO) } });
    expect(Object.keys(out.apiKey)).toEqual(['id', 'revokedAt']);
    const { rows } = await t.db.query('select revoked_at from api_keys where id = $1', [issued.id]);
    expect((rows[0].revoked_at as Date).toISOString()).toBe(out.apiKey.revokedAt);

    expectProblem(await mint(t.app, issued.key), 401, 'INVALID_API_KEY');
    expect((await mint(t.app, firstKey.key)).statusCode).toBe(201);
  });

  it('refuses an unknown store or key with exit 1 and a JSON error on stdout', async () => {
    const missing = randomUUID();
    const [issue, revoke] = await Promise.all([cli('key', 'issue', '--store', missing), cli('key', 'revoke', '--key', missing)]);
    expectFailure(issue, 1, 'STORE_NOT_FOUND');
    expectFailure(revoke, 1, 'KEY_NOT_FOUND');
    const keys = await t.db.query('select count(*)::int as count from api_keys where store_id = $1', [missing]);
    expect(keys.rows[0].count).toBe(0);
  });

  it('refuses bad usage with exit 2 before opening any database', async () => {
    const cases = [
      [],
      ['store'],
      ['shop', 'create', '--name', 'X'],
      ['store', 'create'],
      ['store', 'create', '--name', '   '],
      ['store', 'create', '--name', 'X', '--plan', 'gold'],
      ['store', 'create', '--name', 'X', '--colour', 'red'],
      ['store', 'create', '--name', 'X', 'extra'],
      ['store', 'create', '--name'],
      ['key', 'issue', '--store', 'not-a-uuid'],
      ['key', 'issue', '--store', store.id, '--rate-limit', '0'],
      ['key', 'issue', '--store', store.id, '--rate-limit', 'lots'],
      ['key', 'issue', '--store', store.id, '--scopes', 'catalogue:read,admin:all'],
      ['key', 'issue', '--store', store.id, '--scopes', ','],
      ['key', 'revoke'],
      ['key', 'list', '--store', ''],
      ['demo', 'seed', '--store', store.id, '--products', '-5'],
      ['demo', 'seed', '--store', store.id, '--products', '0'],
    ];
    // A database that cannot be reached: a usage error must not need one.
    const runs = await Promise.all(cases.map((args) => cli.withEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, ...args)));
    runs.forEach((run, index) => {
      expectFailure(run, 2, 'USAGE');
      expect(run.json.error.message, cases[index].join(' ')).toMatch(/usage:/);
    });
    const stores = await t.db.query(`select count(*)::int as count from stores where name = 'X'`);
    expect(stores.rows[0].count).toBe(0);
    const keys = await t.db.query('select count(*)::int as count from api_keys where store_id = $1', [store.id]);
    expect(keys.rows[0].count).toBe(2);
  });

  it('demo seed fills an empty store, and refuses a second time with CATALOGUE_NOT_EMPTY', async () => {
    const counts = async () =>
      (
        await t.db.query(
          `select (select count(*)::int from products where store_id = $1) as products,
                  (select count(*)::int from product_variants where store_id = $1) as variants,
                  (select count(*)::int from categories where store_id = $1) as categories,
                  (select count(*)::int from brands where store_id = $1) as brands`,
          [store.id],
        )
      ).rows[0];
    // Seeding ends with a rebuild of the store's figures, which waits its turn behind the folds of every other suite's stores.
    const out = expectSuccess(await runCli(['demo', 'seed', '--store', store.id, '--products', '30'], {}, 150_000));
    expect(out).toMatchObject({ storeId: store.id, seeded: { products: 30, orders: 2000 } });
    const after = await counts();
    expect(out.seeded).toMatchObject(after);
    expect(after.variants).toBeGreaterThanOrEqual(30);
    const { rows } = await t.db.query(`select count(*)::int as count from products where store_id = $1 and name_ar ~ '[\u0600-\u06FF]'`, [
      store.id,
    ]);
    expect(rows[0].count).toBe(30);

    expectFailure(await cli('demo', 'seed', '--store', store.id, '--products', '5'), 1, 'CATALOGUE_NOT_EMPTY');
    expect(await counts()).toEqual(after);
  }, 180_000); // two CLI processes, each seeding or checking a catalogue: 12 s on a quiet machine, past 60 s in CI
});

describe('npm run cli (issue 25, item 17)', () => {
  // A copy of the project to build and touch: package.json, its scripts, the sources, the build's configuration,
  // and the installed node_modules (linked).
  let project: string;
  let storeId: string;
  const t = useTestApp();

  const npmRunCli = (...args: string[]) =>
    new Promise<CliRun & { ms: number }>((resolve) => {
      const started = performance.now();
      execFile(
        'npm',
        ['run', '--silent', 'cli', '--', ...args],
        {
          cwd: project,
          timeout: 180_000,
          env: {
            PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
            HOME: process.env.HOME ?? project,
            DATABASE_URL: inject('databaseUrl'),
            SECRET_KEY: TEST_SECRET_KEY,
          },
        },
        (error, stdout, stderr) => resolve({ ...cliRun(error, stdout, stderr), ms: performance.now() - started }),
      );
    });
  const builtAt = async (path: string) => (await stat(join(project, path))).mtimeMs;
  /** Marks a file changed now, as an editor saving it does. */
  const touch = async (path: string) => {
    const now = new Date();
    await utimes(join(project, path), now, now);
  };

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'storefront-cli-'));
    for (const entry of [
      'package.json',
      'package-lock.json',
      'scripts',
      'src',
      'dashboard',
      'tsconfig.json',
      'tsconfig.build.json',
      'nest-cli.json',
      'mikro-orm.config.ts',
    ]) {
      await cp(join(ROOT, entry), join(project, entry), { recursive: true });
    }
    await symlink(join(ROOT, 'node_modules'), join(project, 'node_modules'));
    storeId = (await t.store()).storeId;
  });
  afterAll(() => rm(project, { recursive: true, force: true }));

  it('builds what is older than its sources: the whole build for the service, the dashboard alone for its own', async () => {
    const { neededBuild } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-if-stale.js')).href)) as {
      neededBuild(root: string): 'build' | 'build:dashboard' | null;
    };
    const tree = await mkdtemp(join(tmpdir(), 'storefront-stale-'));
    const at = async (path: string, seconds: number) => utimes(join(tree, path), seconds, seconds);
    const file = async (path: string, seconds: number) => {
      await mkdir(dirname(join(tree, path)), { recursive: true });
      await writeFile(join(tree, path), '');
      await at(path, seconds);
    };
    try {
      for (const path of ['src/cli.ts', 'src/demo/seed.ts', 'dashboard/src/main.tsx', 'package.json']) await file(path, 1000);
      for (const folder of ['src/demo', 'src', 'dashboard/src', 'dashboard']) await at(folder, 1000);
      expect(neededBuild(tree)).toBe('build');
      await file('dist/src/cli.js', 2000);
      expect(neededBuild(tree)).toBe('build:dashboard');
      await file('dist/dashboard/index.html', 2000);
      expect(neededBuild(tree)).toBeNull();

      await at('dashboard/src/main.tsx', 3000);
      expect(neededBuild(tree)).toBe('build:dashboard');
      await at('dist/dashboard/index.html', 4000);
      expect(neededBuild(tree)).toBeNull();
      // A deleted source changes its folder.
      await rm(join(tree, 'src/demo/seed.ts'));
      expect(neededBuild(tree)).toBe('build');
    } finally {
      await rm(tree, { recursive: true, force: true });
    }
  });

  it('builds once, then answers without building again; a changed source of the service or of the dashboard is built again', async () => {
    const first = await npmRunCli('key', 'list', '--store', storeId);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.apiKeys).toHaveLength(1);
    const service = await builtAt('dist/src/cli.js');
    const dashboard = await builtAt('dist/dashboard/index.html');

    // The best of three: a busy machine slows one call, not all. Issue 25 measured 1.4 s here; on 2026-11-28 this
    // machine took 2.3–2.8 s for the code before and after issue 28 alike (loading the modules, as
    // `node dist/src/cli.js` alone takes 1.8 s). The bound catches what matters: no rebuild (20 s and more) and
    // no lost compile cache on a call; the figure itself is measured, not asserted (README, Command line).
    const calls = [];
    for (let i = 0; i < 3; i++) calls.push(await npmRunCli('key', 'list', '--store', storeId));
    for (const call of calls) expect(call.json, call.stderr).toEqual(first.json);
    expect(Math.min(...calls.map((call) => call.ms))).toBeLessThan(4000);
    expect(await builtAt('dist/src/cli.js')).toBe(service);
    expect(await builtAt('dist/dashboard/index.html')).toBe(dashboard);

    // A source of the service: the whole build again (nest build empties dist/).
    await touch('src/cli.ts');
    const afterService = await npmRunCli('key', 'list', '--store', storeId);
    expect(afterService.json, afterService.stderr).toEqual(first.json);
    expect(await builtAt('dist/src/cli.js')).toBeGreaterThan(service);
    expect(await builtAt('dist/dashboard/index.html')).toBeGreaterThan(dashboard);

    // A source of the dashboard: its build alone.
    const rebuiltService = await builtAt('dist/src/cli.js');
    const rebuiltDashboard = await builtAt('dist/dashboard/index.html');
    await touch('dashboard/src/main.tsx');
    const afterDashboard = await npmRunCli('key', 'list', '--store', storeId);
    expect(afterDashboard.json, afterDashboard.stderr).toEqual(first.json);
    expect(await builtAt('dist/src/cli.js')).toBe(rebuiltService);
    expect(await builtAt('dist/dashboard/index.html')).toBeGreaterThan(rebuiltDashboard);
  }, 300_000);
});
