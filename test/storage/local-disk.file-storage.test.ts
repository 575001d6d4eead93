import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDiskFileStorage } from '../../src/infra/storage/local-disk.file-storage.js';
import { failingAfter, fileStorageContract } from './file-storage.contract.js';

describe('LocalDiskFileStorage', () => {
  const roots: string[] = [];
  const freshRoot = async () => {
    const root = await mkdtemp(join(tmpdir(), 'file-storage-'));
    roots.push(root);
    return root;
  };
  afterAll(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

  fileStorageContract(async () => new LocalDiskFileStorage(join(await freshRoot(), 'files')));

  it('leaves no partial file behind a failed write', async () => {
    const root = await freshRoot();
    const storage = new LocalDiskFileStorage(root);
    await expect(storage.write('a/b.csv', failingAfter(1024))).rejects.toThrow('source failed');
    expect(await readdir(join(root, 'a'))).toEqual([]);
  });

  it('lists no partial file a killed process left, and the next write of the key clears it away', async () => {
    const root = await freshRoot();
    const storage = new LocalDiskFileStorage(root);
    await mkdir(join(root, 'drop'));
    await writeFile(join(root, 'drop', 'a.csv.0123abcd.partial'), 'half');
    expect(await storage.list('')).toEqual([]);
    await storage.write('drop/a.csv', Readable.from(['whole']));
    expect(await readdir(join(root, 'drop'))).toEqual(['a.csv']);
  });

  it('lists no file whose name no key could have', async () => {
    const root = await freshRoot();
    const storage = new LocalDiskFileStorage(root);
    await writeFile(join(root, 'with space.csv'), 'x');
    await writeFile(join(root, 'ok.csv'), 'x');
    expect((await storage.list('')).map((file) => file.key)).toEqual(['ok.csv']);
  });
});
