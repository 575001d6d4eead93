import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { inject } from 'vitest';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '..', '..');
const BUILDS = join(ROOT, '.data', 'test-build');

/**
 * `nest build` (the real build: SWC, tsconfig.build.json) once per test run, into a directory of this
 * run (`.data/test-build/<run>/dist`) rather than `dist/`: `nest build` empties its output first, so a
 * shared `dist/` would vanish under a child process of another test run (or a developer's server)
 * started meanwhile. Test files of one run share the build: a lock directory serialises them and a
 * marker says it is done. Returns the path of the built file `relative` (e.g. `src/cli.js`).
 */
export async function buildOnce(): Promise<(relative: string) => string> {
  const runId = new URL(inject('databaseUrl')).pathname.slice(1);
  const dir = join(BUILDS, runId);
  const outDir = join(dir, 'dist');
  const marker = join(dir, 'built');
  const lock = join(dir, 'lock');
  const built = (relative: string) => join(outDir, relative);
  await mkdir(dir, { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (await exists(marker)) return built;
    try {
      await mkdir(lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await sleep(100);
      continue;
    }
    try {
      if (!(await exists(marker))) {
        await removeOldBuilds(runId);
        const tsconfig = join(dir, 'tsconfig.json');
        await writeFile(tsconfig, JSON.stringify({ extends: join(ROOT, 'tsconfig.build.json'), compilerOptions: { outDir } }));
        await run(join(ROOT, 'node_modules', '.bin', 'nest'), ['build', '--path', relative(ROOT, tsconfig)], { cwd: ROOT });
        await writeFile(marker, new Date().toISOString());
      }
      return built;
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
}

/** Builds of earlier runs (their databases are gone), left after an hour. */
async function removeOldBuilds(current: string): Promise<void> {
  for (const entry of await readdir(BUILDS).catch(() => [] as string[])) {
    if (entry === current) continue;
    const path = join(BUILDS, entry);
    const info = await stat(path).catch(() => undefined);
    if (info && Date.now() - info.mtimeMs > 3_600_000) await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
