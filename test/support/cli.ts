import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildOnce, ROOT } from './build.js';
import { TEST_SECRET_KEY } from './test-app.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed: the whole of it is one JSON document, or undefined when it is not. */
  json: any;
}

/** What a finished command line process gave: its exit code, its output, and that output as JSON when it is. */
export function cliRun(error: Error | null, stdout: string, stderr: string): CliRun {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr, json };
}

/** The real command line, as an operator runs it: `node dist/src/cli.js …` from this test run's build. */
export async function runCli(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<CliRun> {
  const cliPath = (await buildOnce())('src/cli.js');
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      {
        cwd: ROOT,
        timeout: timeoutMs,
        env: {
          PATH: process.env.PATH ?? '',
          DATABASE_URL: inject('databaseUrl'),
          SECRET_KEY: TEST_SECRET_KEY,
          // Start-up is mostly module loading: let the runs share V8's compile cache.
          NODE_COMPILE_CACHE: join(tmpdir(), 'storefront-test-compile-cache'),
          ...env,
        },
      },
      (error, stdout, stderr) => done(cliRun(error, stdout, stderr)),
    );
  });
}
