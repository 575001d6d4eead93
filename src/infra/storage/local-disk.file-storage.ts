import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkedKey, type FileStorage, type StoredFile } from './file-storage.js';

/**
 * The default file storage: a directory on the local disk (`DATA_DIR/files`). A file is written
 * beside its final name and renamed into place when complete, so a crash mid-write leaves no file
 * under the key, only a `.partial` one, which the next write of the key clears away. Instances share
 * files only when they share the directory.
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
    return info ? { bytes: info.size, content: createReadStream(path) } : null;
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
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
