import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

/** The OpenAPI document names a schema after its class: two classes of one name would silently share a schema. */
describe('OpenAPI schema names', () => {
  it('every exported class under src has its own name', async () => {
    const files = (await readdir(join(ROOT, 'src'), { recursive: true })).filter((file) => file.endsWith('.ts'));
    const owners = new Map<string, string[]>();
    for (const file of files) {
      for (const [, name] of (await readFile(join(ROOT, 'src', file), 'utf8')).matchAll(/^export class (\w+)/gm)) {
        owners.set(name, [...(owners.get(name) ?? []), file]);
      }
    }
    expect([...owners].filter(([, where]) => where.length > 1)).toEqual([]);
  });
});
