import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, vi } from 'vitest';
import { AppModule } from '../../src/app.module.js';
import { TestDatabase } from './database.js';
import { createStore, type StoreOptions, type TestStore } from './fixtures.js';
import { StorefrontClient } from './storefront-client.js';
import { createIsolatedDatabase, startTestApp, type TestApp } from './test-app.js';

export interface HarnessOptions {
  /** Receives the app's log lines (set LOG_LEVEL in `env` to see any). */
  logTo?: { write(line: string): void };
  /** A database of its own instead of the run's shared one, for suites that change what every app relies on. */
  ownDatabase?: boolean;
  /** Test-only controllers mounted in the real application, behind its real guards, pipes and filter. */
  controllers?: Type[];
  /** Run the periodic jobs (folding Insights changes in, key rotation…) as a deployed instance does; off by default. */
  schedulers?: boolean;
}

/** One running app of a suite, with the suite's database connections; usable inside hooks and tests. */
export interface Harness {
  readonly app: NestFastifyApplication;
  readonly databaseUrl: string;
  /** The app's database, shared by the suite's instances and closed after the suite. */
  readonly db: TestDatabase;
  /** Listens on an ephemeral port, for requests that must race over real HTTP; answers the base URL. */
  listen(): Promise<string>;
  store(options?: StoreOptions): Promise<TestStore>;
  /** A storefront client on a new session of the store's first key. */
  shopper(store: TestStore, scope?: string[]): Promise<StorefrontClient>;
}

/** Configuration as the environment would give it; a function when a value is known only once earlier hooks ran. */
type Env = Record<string, string> | (() => Record<string, string>);

/** The real application for the enclosing suite: started before its tests, closed after them. */
export function useTestApp(env: Env = {}, options: HarnessOptions = {}): Harness {
  return useTestApps(1, env, options)[0];
}

/** `count` instances of the application on one database, started side by side, as several servers of one deployment. */
export function useTestApps(count: number, env: Env = {}, options: HarnessOptions = {}): Harness[] {
  const started: TestApp[] = [];
  let database: TestDatabase | undefined;
  let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>> | undefined;

  beforeAll(
    async () => {
      if (options.ownDatabase) isolated = await createIsolatedDatabase();
      const given = typeof env === 'function' ? env() : env;
      const appEnv = isolated ? { ...given, DATABASE_URL: isolated.url } : given;
      started.push(...(await startAll(count, appEnv, options)));
      database = new TestDatabase(started[0].databaseUrl);
    },
    // A database of its own is migrated from scratch.
    options.ownDatabase ? 120_000 : undefined,
  );
  afterAll(async () => {
    await database?.end();
    await Promise.all(started.map((instance) => instance.close()));
    await isolated?.drop();
  });

  const running = (index: number): TestApp => ready(started[index]);
  return Array.from({ length: count }, (_, index) => ({
    get app() {
      return running(index).app;
    },
    get databaseUrl() {
      return running(index).databaseUrl;
    },
    get db() {
      return ready(database);
    },
    listen: () => running(index).listen(),
    store: (storeOptions?: StoreOptions) => createStore(running(index).app, storeOptions),
    shopper: (store: TestStore, scope?: string[]) => StorefrontClient.start(running(index), store.key, scope),
  }));
}

function ready<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the test app starts in beforeAll: use the harness inside hooks and tests');
  return value;
}

/** Starts `count` instances side by side; every one is returned, or none is left running. */
async function startAll(count: number, env: Record<string, string>, options: HarnessOptions): Promise<TestApp[]> {
  const extra = options.controllers;
  const forRoot = AppModule.forRoot.bind(AppModule);
  const spy = extra
    ? vi.spyOn(AppModule, 'forRoot').mockImplementation((...args: Parameters<typeof AppModule.forRoot>) => {
        const module = forRoot(...args);
        return { ...module, controllers: [...(module.controllers ?? []), ...extra] };
      })
    : undefined;
  try {
    const starts = await Promise.allSettled(Array.from({ length: count }, () => startTestApp(env, options.logTo, options.schedulers)));
    const started = starts.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = starts.find((result) => result.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((instance) => instance.close()));
      throw failed.reason;
    }
    return started;
  } finally {
    spy?.mockRestore();
  }
}
