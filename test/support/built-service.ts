import { type ChildProcess, spawn } from 'node:child_process';
import { buildOnce, ROOT } from './build.js';
import { freePort } from './ports.js';
import { TEST_SECRET_KEY } from './test-app.js';
import { eventually } from './waiting.js';

/** A built service process, ready: its process, where it listens, and what it has logged so far. */
export interface BuiltService {
  child: ChildProcess;
  port: number;
  /** http://127.0.0.1:port */
  url: string;
  output: () => string;
}

/**
 * The built service (what `npm start` runs) as a process of its own on `databaseUrl`, ready: for tests
 * that kill a worker mid-job (SIGKILL) and watch another instance take the job up, and for several
 * instances behind a balancer. `env` adds to or overrides its configuration (REDIS_URL, LOG_LEVEL…).
 */
export async function startBuiltService(databaseUrl: string, dataDir: string, env: Record<string, string> = {}): Promise<BuiltService> {
  const main = (await buildOnce())('src/main.js');
  const port = await freePort();
  let output = '';
  // setpriv: the kernel kills the service should the test process die without stopping it; it executes
  // node itself, so the child's PID is the service's.
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', '--', process.execPath, main], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const ready = await eventually(
    () =>
      fetch(`${url}/health/ready`).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200 || child.exitCode !== null,
    60_000,
  );
  if (ready !== 200) {
    child.kill('SIGKILL');
    throw new Error(`the built service did not get ready:\n${output}`);
  }
  return { child, port, url, output: () => output };
}
