import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOnce, ROOT } from '../support/build.js';

const run = promisify(execFile);

/**
 * The dashboard's API types are the service's OpenAPI document's (issue 26, item 9): written again from the
 * built service, they are the committed `dashboard/src/lib/api-schema.d.ts`, byte for byte. A change of the API
 * that the dashboard's types do not follow fails here: `npm run generate:api-types` writes them again.
 */
describe('dashboard API types', () => {
  let dir: string;
  let built: (relative: string) => string;

  beforeAll(async () => {
    built = await buildOnce();
    dir = await mkdtemp(join(tmpdir(), 'api-types-'));
  }, 120_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are the committed file, generated from the OpenAPI document without a database', async () => {
    const out = join(dir, 'api-schema.d.ts');
    await run(process.execPath, [join(ROOT, 'scripts', 'generate-api-types.js'), '--service', built('src'), '--out', out], { cwd: ROOT });
    const committed = await readFile(join(ROOT, 'dashboard', 'src', 'lib', 'api-schema.d.ts'), 'utf8');
    const generated = await readFile(out, 'utf8');
    // Not toBe: a difference of eleven thousand lines is printed in full; the first differing line says enough.
    const firstDifference = generated.split('\n').findIndex((line, index) => line !== committed.split('\n')[index]);
    expect(firstDifference, 'run `npm run generate:api-types`').toBe(-1);
    expect(generated.length).toBe(committed.length);
  }, 60_000);
});
