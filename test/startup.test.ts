import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, ROOT } from './support/build.js';
import { eventually } from './support/waiting.js';
import { freePort } from './support/ports.js';

interface Server {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The built server as `npm start` runs it, with the zero-configuration embedded database. */
function startServer(main: string, env: Record<string, string>): Server {
  const child = spawn(process.execPath, [main], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function exitsWithin(server: Server, ms: number): Promise<number | null> {
  const timeout = new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms).unref());
  const code = await Promise.race([server.exited, timeout]);
  if (code === 'running') {
    server.child.kill('SIGKILL');
    throw new Error(`still running after ${ms} ms; stdout: ${server.stdout()} stderr: ${server.stderr()}`);
  }
  return code;
}

describe('npm start on a fresh machine', () => {
  let main: string;
  let dataDir: string;
  let otherDataDir: string;
  let env: Record<string, string>;
  let first: Server;

  beforeAll(async () => {
    main = (await buildOnce())('src/main.js');
    dataDir = await mkdtemp(join(tmpdir(), 'storefront-start-'));
    otherDataDir = await mkdtemp(join(tmpdir(), 'storefront-start-other-'));
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    first = startServer(main, env);
    await eventually(
      async () => first.stdout(),
      (output) => output.includes('API docs:') || first.child.exitCode !== null,
      150_000,
    );
  }, 180_000);
  afterAll(async () => {
    if (first?.child.exitCode === null) {
      first.child.kill('SIGTERM');
      await exitsWithin(first, 30_000);
    }
    await rm(dataDir, { recursive: true, force: true });
    await rm(otherDataDir, { recursive: true, force: true });
  }, 60_000);

  it('prints the demo banner last, after "listening", and only plain JSON log lines before it', () => {
    const output = first.stdout();
    const bannerStart = output.indexOf('\n  Demo store created');
    expect(bannerStart, first.stderr()).toBeGreaterThan(0);
    const logLines = output.slice(0, bannerStart).trim().split('\n');
    const banner = output.slice(bannerStart);

    expect(JSON.parse(logLines.at(-1)!)).toMatchObject({ level: 'info', msg: 'storefront service listening' });
    expect(banner).toMatch(/API key {2}: sk_live_[A-Za-z0-9]{40}\n/);
    expect(banner.trimEnd().split('\n').at(-1)).toBe(`  API docs: http://localhost:${env.PORT}/docs`);
    for (const line of logLines) {
      const record = JSON.parse(line) as { level: string; context?: string };
      expect(record.level, line).toBe('info');
      expect(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']).not.toContain(record.context);
    }
    // The fresh database ran its migrations, whose lines MikroORM colours.
    expect(output).toContain('[migrator] Applied');
    expect(output).not.toMatch(/\\u001b|\u001b/);
  });

  it('a second start on the busy port says which variable to set, in one line without a stack trace', async () => {
    const second = startServer(main, env);
    expect(await exitsWithin(second, 30_000)).toBe(1);
    const lines = second.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`0.0.0.0:${env.PORT} is already in use`);
    expect(lines[0]).toMatch(/Set PORT \(and HOST if needed\)/);
    expect(second.stdout()).toBe('');
  });

  it('a start whose embedded database port is taken names EMBEDDED_PG_PORT, without a stack trace', async () => {
    const other = startServer(main, { ...env, DATA_DIR: otherDataDir, PORT: String(await freePort()) });
    expect(await exitsWithin(other, 30_000)).toBe(1);
    expect(other.stderr()).toContain(`port ${env.EMBEDDED_PG_PORT} on 127.0.0.1 is already in use`);
    expect(other.stderr()).toContain('Set EMBEDDED_PG_PORT to a free port');
    expect(other.stderr()).not.toMatch(/\bat \S+ \(/);
  });

  it('stops with its embedded database on SIGTERM', async () => {
    first.child.kill('SIGTERM');
    expect(await exitsWithin(first, 30_000)).toBe(0);
    expect(await accepts(Number(env.EMBEDDED_PG_PORT))).toBe(false);
  }, 40_000);
});
