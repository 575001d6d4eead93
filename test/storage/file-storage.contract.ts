import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { expect, it } from 'vitest';
import type { FileStorage } from '../../src/infra/storage/file-storage.js';

/** What every `FileStorage` promises its callers; `fresh` gives an empty storage of the strategy under test. */
export function fileStorageContract(fresh: () => Promise<FileStorage>): void {
  it('writes a file and opens it again; a missing file opens as null and deletes as nothing', async () => {
    const storage = await fresh();
    expect(await storage.write('exports/a.csv', Readable.from(['id,name\n', '1,Tea\n']))).toEqual({ key: 'exports/a.csv', bytes: 14 });
    const opened = await storage.open('exports/a.csv');
    expect(opened?.bytes).toBe(14);
    expect(await text(opened!.content)).toBe('id,name\n1,Tea\n');
    expect(await storage.open('exports/b.csv')).toBeNull();
    await storage.delete('exports/b.csv');
  });

  it('deletes a file', async () => {
    const storage = await fresh();
    await storage.write('a.txt', Readable.from(['x']));
    await storage.delete('a.txt');
    expect(await storage.open('a.txt')).toBeNull();
    expect(await storage.list('')).toEqual([]);
  });

  it('stores an empty file', async () => {
    const storage = await fresh();
    expect(await storage.write('empty.txt', Readable.from([]))).toEqual({ key: 'empty.txt', bytes: 0 });
    const opened = await storage.open('empty.txt');
    expect(opened?.bytes).toBe(0);
    expect(await text(opened!.content)).toBe('');
  });

  it('replaces a file written again', async () => {
    const storage = await fresh();
    await storage.write('report.csv', Readable.from(['first version']));
    await storage.write('report.csv', Readable.from(['second']));
    expect(await text((await storage.open('report.csv'))!.content)).toBe('second');
    expect((await storage.list('')).map((file) => [file.key, file.bytes])).toEqual([['report.csv', 6]]);
  });

  it('lists complete files under a prefix at any depth, sorted by key, with sizes and times', async () => {
    const storage = await fresh();
    const before = Date.now();
    for (const key of ['drop/b.csv', 'drop/a/deep/x.csv', 'drop-old/c.csv', 'drop/a.csv', 'other.txt', 'drop/A-b.csv']) {
      await storage.write(key, Readable.from([key]));
    }
    const listed = await storage.list('drop/');
    expect(listed.map((file) => file.key)).toEqual(['drop/A-b.csv', 'drop/a.csv', 'drop/a/deep/x.csv', 'drop/b.csv']);
    expect(listed.map((file) => file.bytes)).toEqual(listed.map((file) => file.key.length));
    for (const file of listed) {
      expect(file.modifiedAt).toBeInstanceOf(Date);
      // S3 keeps whole seconds.
      expect(file.modifiedAt.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(file.modifiedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    }
    expect((await storage.list('drop/a/')).map((file) => file.key)).toEqual(['drop/a/deep/x.csv']);
    expect((await storage.list('')).map((file) => file.key)).toEqual([
      'drop-old/c.csv',
      'drop/A-b.csv',
      'drop/a.csv',
      'drop/a/deep/x.csv',
      'drop/b.csv',
      'other.txt',
    ]);
    expect(await storage.list('nothing/here/')).toEqual([]);
  });

  it('keeps nothing of a write whose stream fails midway, and keeps the file it was to replace', async () => {
    const storage = await fresh();
    await storage.write('kept.csv', Readable.from(['old content']));
    for (const key of ['new.csv', 'kept.csv']) {
      await expect(storage.write(key, failingAfter(64 * 1024))).rejects.toThrow('source failed');
    }
    expect(await storage.open('new.csv')).toBeNull();
    expect(await text((await storage.open('kept.csv'))!.content)).toBe('old content');
    expect((await storage.list('')).map((file) => file.key)).toEqual(['kept.csv']);
  });

  it('keeps nothing of a large write that fails after several megabytes', async () => {
    const storage = await fresh();
    await expect(storage.write('large.bin', failingAfter(12 * 1024 * 1024))).rejects.toThrow('source failed');
    expect(await storage.open('large.bin')).toBeNull();
    expect(await storage.list('')).toEqual([]);
  });

  it('streams 20 MB of unknown length in and out unchanged', async () => {
    const storage = await fresh();
    const size = 20 * 1024 * 1024 + 123;
    const source = generated(size);
    expect(await storage.write('big/file.bin', source.stream)).toEqual({ key: 'big/file.bin', bytes: size });
    const opened = await storage.open('big/file.bin');
    expect(opened?.bytes).toBe(size);
    const hash = createHash('sha256');
    for await (const chunk of opened!.content) hash.update(chunk as Buffer);
    expect(hash.digest('hex')).toBe(source.sha256());
  }, 60_000);

  it.each([
    '',
    '/etc/passwd',
    '../outside',
    'a/../../b',
    'a/..',
    'a//b',
    'a/./b',
    '.',
    'dir/',
    'with space',
    'ümlaut',
    'back\\slash',
    'x'.repeat(513),
  ])('refuses the key %j', async (key) => {
    const storage = await fresh();
    await expect(storage.write(key, Readable.from(['x']))).rejects.toThrow(/not a file storage key/);
    await expect(storage.open(key)).rejects.toThrow(/not a file storage key/);
    await expect(storage.delete(key)).rejects.toThrow(/not a file storage key/);
  });

  it.each(['drop', '/', '/drop/', '../', 'a//', 'a/../', './'])('refuses to list the prefix %j', async (prefix) => {
    const storage = await fresh();
    await expect(storage.list(prefix)).rejects.toThrow(/not a file storage prefix/);
  });
}

/** A stream of `bytes` bytes of unknown length, then an error (as a dropped upstream connection gives). */
export function failingAfter(bytes: number): Readable {
  return Readable.from(
    (async function* () {
      for (let sent = 0; sent < bytes; sent += 64 * 1024) yield randomBytes(Math.min(64 * 1024, bytes - sent));
      throw new Error('source failed');
    })(),
  );
}

/** `size` random bytes as a stream of unknown length, hashed as they are produced. */
function generated(size: number): { stream: Readable; sha256(): string } {
  const hash = createHash('sha256');
  const stream = Readable.from(
    (async function* () {
      for (let sent = 0; sent < size; sent += 256 * 1024) {
        const chunk = randomBytes(Math.min(256 * 1024, size - sent));
        hash.update(chunk);
        yield chunk;
      }
    })(),
  );
  return { stream, sha256: () => hash.digest('hex') };
}
