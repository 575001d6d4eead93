import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedKey, checkedPrefix, isFileKey, sortedByKey, type FileStorage, type ListedFile, type StoredFile } from './file-storage.js';

const PARTIAL = /\.[0-9a-f]{8}\.partial$/;

/**
 * The default file storage: a directory on the local disk (`DATA_DIR/files`). A file is written
 * beside its final name and renamed into place when complete, so a crash mid-write leaves no file
 * under the key, only a `.partial` one, which listings pass over and the next write of the key clears
 * away. Instances share files only when they share the directory.
 */
export class LocalDiskFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  async write(key: string, content: Readable): Promise<StoredFile> {
    const path = this.path(key);
    await mkdir(dirname(path), { recursive: true });
    await this.clearPartials(path);
    const partial = `${path}.${randomBytes(4).toString('hex')}.partial`;
    try {
      await pipeline(content, createWriteStream(partial, { mode: 0o600 }));
      await rename(partial, path);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { key, bytes: (await stat(path)).size };
  }

  async open(key: string): Promise<{ bytes: number; content: Readable } | null> {
    const path = this.path(key);
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    return info?.isFile() ? { bytes: info.size, content: createReadStream(path) } : null;
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async list(prefix: string): Promise<ListedFile[]> {
    return sortedByKey(await this.filesUnder(join(this.root, checkedPrefix(prefix)), prefix));
  }

  /** The complete files in `dir` and below it, `dir` being where keys starting with `keyPrefix` live. */
  private async filesUnder(dir: string, keyPrefix: string): Promise<ListedFile[]> {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
    const found = await Promise.all(
      entries.map(async (entry): Promise<ListedFile[]> => {
        const key = keyPrefix + entry.name;
        if (entry.isDirectory()) return this.filesUnder(join(dir, entry.name), `${key}/`);
        if (!entry.isFile() || PARTIAL.test(entry.name) || !isFileKey(key)) return [];
        // Deleted since the directory was read: not there any more.
        const info = await stat(join(dir, entry.name)).catch(() => null);
        return info ? [{ key, bytes: info.size, modifiedAt: info.mtime }] : [];
      }),
    );
    return found.flat();
  }

  /** What writes of this file that never finished (a killed process) left beside it. */
  private async clearPartials(path: string): Promise<void> {
    const prefix = `${basename(path)}.`;
    for (const name of await readdir(dirname(path))) {
      if (name.startsWith(prefix) && name.endsWith('.partial')) await rm(join(dirname(path), name), { force: true });
    }
  }

  private path(key: string): string {
    return join(this.root, checkedKey(key));
  }
}
