import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error bench/ is plain JavaScript without declarations
import { RESULTS_DIR, resultPaths, writeResults } from '../bench/lib.js';
import { ROOT } from './support/build.js';

const git = (...args: string[]) => promisify(execFile)('git', ['-C', ROOT, ...args]);
const BENCHES = ['bench', 'journey', 'search', 'insights', 'exports', 'profile'];
const startedAt = new Date('2026-11-23T15:56:13.456Z');

describe('bench results', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

  it("go to a timestamped file git ignores, next to each bench's committed reference", async () => {
    for (const bench of BENCHES) {
      const paths = resultPaths(bench, startedAt);
      expect(relative(ROOT, paths.run)).toBe(`bench/results/${bench}-2026-11-23T15-56-13.456Z.json`);
      await expect(git('check-ignore', '-q', relative(ROOT, paths.run))).resolves.toBeDefined();
      const { stdout } = await git('ls-files', relative(ROOT, paths.reference));
      expect(stdout.trim(), bench).toBe(`bench/results/${bench}-reference.json`);
    }
    expect(resultPaths('bench', startedAt).reference).toBe(join(RESULTS_DIR, 'bench-reference.json'));
  });

  it('replace the reference only when asked to', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-results-'));
    dirs.push(dir);
    await writeFile(join(dir, 'journey-reference.json'), '{"reference":true}\n');

    await writeResults('journey', { run: 1 }, { startedAt, updateReference: false, dir });
    expect(JSON.parse(await readFile(join(dir, 'journey-reference.json'), 'utf8'))).toEqual({ reference: true });

    await writeResults('journey', { run: 2 }, { startedAt: new Date(startedAt.getTime() + 1000), updateReference: true, dir });
    expect(JSON.parse(await readFile(join(dir, 'journey-reference.json'), 'utf8'))).toEqual({ run: 2 });
    expect((await readdir(dir)).sort()).toEqual([
      'journey-2026-11-23T15-56-13.456Z.json',
      'journey-2026-11-23T15-56-14.456Z.json',
      'journey-reference.json',
    ]);
  });
});
