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

/** What a terminal shows of an npm command: stdout and stderr as they came, one stream. */
const npmOutput = (args: string, options: { cwd: string; env: Record<string, string> }) => run('sh', ['-c', `npm ${args} 2>&1`], options);

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

  it('agrees with devEngines, which only warns: refused there, npm would stop before the check could say how to get Node 24', () => {
    expect(manifest.engines.node).toBe('>=24.7');
    expect(manifest.devEngines.runtime).toEqual({ name: 'node', version: manifest.engines.node, onFail: 'warn' });
  });

  describe.runIf(OLD_NODE_VERSION && refusal(OLD_NODE_VERSION, OLD_NODE))(
    `on the machine's older Node (${OLD_NODE} ${OLD_NODE_VERSION})`,
    () => {
      let project: string;
      beforeAll(async () => {
        // package.json, its lockfile and scripts only: should the check let the old Node through, nothing is there to build.
        project = await mkdtemp(join(tmpdir(), 'storefront-old-node-'));
        for (const file of ['package.json', 'package-lock.json']) await cp(join(ROOT, file), join(project, file));
        await cp(join(ROOT, 'scripts'), join(project, 'scripts'), { recursive: true });
      });
      afterAll(() => rm(project, { recursive: true, force: true }));
      const oldNodeFirst = () => ({ PATH: `/usr/bin:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/root' });

      it('the script itself parses, prints one line to stderr and exits 1', async () => {
        const result = await run(OLD_NODE, ['scripts/check-node.cjs'], { cwd: project });
        expect(result).toEqual({ code: 1, stdout: '', stderr: `${refusal(OLD_NODE_VERSION, OLD_NODE)}\n` });
      });

      it('npm install ends with the one line saying how to get Node 24, and then only npm’s lines on the failed check', async () => {
        // --package-lock-only: npm's steps in their order (devEngines, the tree from the lockfile, the root's preinstall)
        // without writing the dependencies; a whole install on Node 20 ends the same way, after about 45 s.
        const result = await npmOutput('install --offline --package-lock-only --no-audit --no-fund', { cwd: project, env: oldNodeFirst() });
        expect(result.code).not.toBe(0);
        const lines = result.stdout.trimEnd().split('\n');
        const fix = lines.lastIndexOf(refusal(OLD_NODE_VERSION, OLD_NODE)!);
        expect(fix, result.stdout).toBeGreaterThan(0);
        expect(lines.slice(fix + 1)).toEqual([
          'npm error code 1',
          `npm error path ${project}`,
          'npm error command failed',
          'npm error command sh -c node scripts/check-node.cjs',
          expect.stringMatching(/^npm error A complete log of this run can be found in: /),
        ]);
        // npm's own warning comes first, at once.
        expect(lines[0]).toMatch(/^npm warn EBADDEVENGINES /);
        expect(result.stdout).toContain('Invalid semver version ">=24.7" does not match "v' + OLD_NODE_VERSION + '"');
      });

      it('npm start and npm run cli end with that line, before building, without a SyntaxError', async () => {
        for (const args of ['start', 'run cli -- store list']) {
          const result = await npmOutput(args, { cwd: project, env: oldNodeFirst() });
          expect(result.code, args).not.toBe(0);
          expect(result.stdout.trimEnd().split('\n').at(-1), args).toBe(refusal(OLD_NODE_VERSION, OLD_NODE));
          expect(result.stdout).not.toContain('SyntaxError');
          expect(existsSync(join(project, 'dist'))).toBe(false);
        }
      });
    },
  );
});
