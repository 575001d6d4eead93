import { type ChildProcess, spawn } from 'node:child_process';
import { buildOnce, ROOT } from './build.js';
import { freePort } from './ports.js';
import { TEST_SECRET_KEY } from './test-app.js';
import { eventually } from './waiting.js';

/**
 * The built service (what `npm start` runs) as a process of its own on `databaseUrl`, ready: for tests
 * that kill a worker mid-job (SIGKILL) and watch another instance take the job up.
 */
export async function startBuiltService(databaseUrl: string, dataDir: string): Promise<{ child: ChildProcess; output: () => string }> {
  const main = (await buildOnce())('src/main.js');
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const ready = await eventually(
    () =>
      fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200,
    60_000,
  );
  if (ready !== 200) {
    child.kill('SIGKILL');
    throw new Error(`the built service did not get ready:\n${output}`);
  }
  return { child, output: () => output };
}
