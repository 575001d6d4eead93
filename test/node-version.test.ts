import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifest from '../package.json' with { type: 'json' };
import { ROOT } from './support/build.js';

const { refusal } = createRequire(import.meta.url)('../scripts/check-node.cjs') as {
  refusal(found: string, execPath: string): string | null;
};

/** The machine's own Node, older than the project needs here and on CI's machines (where npm comes with it); skipped where it is not. */
const OLD_NODE = '/usr/bin/node';
const OLD_NODE_VERSION = existsSync(OLD_NODE) ? execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() : '';

function run(file: string, args: string[], options: { cwd: string; env?: Record<string, string> }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(file, args, { ...options, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the Node version check', () => {
  it('refuses Nodes older than engines.node in one line saying how to get Node 24', () => {
    const message = refusal('24.6.9', '/opt/node/bin/node');
    expect(message).toBe(
      'storefront-service needs Node.js >= 24.7; this is Node 24.6.9 (/opt/node/bin/node). Install Node 24 LTS: nvm install 24 (see .nvmrc), ' +
        'or npm install --prefix .tools/node node@24 && export PATH="$PWD/.tools/node/node_modules/.bin:$PATH", or https://nodejs.org/en/download',
    );
    expect(refusal('20.20.2', '/usr/bin/node')).toContain('this is Node 20.20.2 (/usr/bin/node)');
    expect(refusal('8.17.0', '/usr/bin/node')).not.toBeNull();
    for (const recent of ['24.7.0', '24.21.0', '25.0.0', process.versions.node]) expect(refusal(recent, 'node')).toBeNull();
  });

  it('agrees with devEngines, which npm 10.9+ checks before installing anything', () => {
    expect(manifest.engines.node).toBe('>=24.7');
    expect(manifest.devEngines.runtime).toEqual({ name: 'node', version: manifest.engines.node, onFail: 'error' });
  });

  describe.runIf(OLD_NODE_VERSION && refusal(OLD_NODE_VERSION, OLD_NODE))(
    `on the machine's older Node (${OLD_NODE} ${OLD_NODE_VERSION})`,
    () => {
      let project: string;
      beforeAll(async () => {
        // package.json and the check only: should the check let the old Node through, nothing is there to build or install.
        project = await mkdtemp(join(tmpdir(), 'storefront-old-node-'));
        await cp(join(ROOT, 'package.json'), join(project, 'package.json'));
        await cp(join(ROOT, 'scripts'), join(project, 'scripts'), { recursive: true });
      });
      afterAll(() => rm(project, { recursive: true, force: true }));
      const oldNodeFirst = () => ({ PATH: `/usr/bin:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/root' });

      it('the script itself parses, prints one line to stderr and exits 1', async () => {
        const result = await run(OLD_NODE, ['scripts/check-node.cjs'], { cwd: project });
        expect(result).toEqual({ code: 1, stdout: '', stderr: `${refusal(OLD_NODE_VERSION, OLD_NODE)}\n` });
      });

      it('npm install stops before installing anything', async () => {
        const result = await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: project, env: oldNodeFirst() });
        expect(result.code).not.toBe(0);
        expect(existsSync(join(project, 'node_modules'))).toBe(false);
        expect(result.stdout + result.stderr).toMatch(/>=24\.7/);
      });

      it('npm start and npm run cli stop at the check, before building, without a SyntaxError', async () => {
        // --force turns npm's own devEngines refusal into a warning, as an npm older than 10.9 ignores it.
        for (const args of [
          ['start', '--force'],
          ['run', 'cli', '--force', '--', 'store', 'list'],
        ]) {
          const result = await run('npm', args, { cwd: project, env: oldNodeFirst() });
          expect(result.code, args.join(' ')).not.toBe(0);
          expect(result.stderr).toContain('storefront-service needs Node.js >= 24.7; this is Node ');
          expect(result.stdout + result.stderr).not.toContain('SyntaxError');
          expect(existsSync(join(project, 'dist'))).toBe(false);
        }
      });
    },
  );
});
