import type { Readable } from 'node:stream';

/** A stored file as `FileStorage` describes it. */
export interface StoredFile {
  key: string;
  bytes: number;
}

/**
 * Where the service keeps files it makes or receives (exports, delivered reports, the data hub's
 * drop): a strategy, so that several instances can share a bucket instead of one disk. Keys are
 * relative paths of `[A-Za-z0-9._/-]` the caller builds; a write is all or nothing (readers never
 * see half a file, and a failed write leaves nothing under its key).
 */
export interface FileStorage {
  /** Streams `content` into `key`, replacing what was there once it is complete. */
  write(key: string, content: Readable): Promise<StoredFile>;
  /** The file's bytes, or null when there is no such file. */
  open(key: string): Promise<{ bytes: number; content: Readable } | null>;
  /** Removes the file; nothing when there is none. */
  delete(key: string): Promise<void>;
}

export const FILE_STORAGE = Symbol('FileStorage');

const KEY = /^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]{1,512}$/;

/** Refuses a key that could leave the storage's root (absolute, `..`) or carry odd characters. */
export function checkedKey(key: string): string {
  if (!KEY.test(key) || key.endsWith('/')) throw new Error(`not a file storage key: ${JSON.stringify(key)}`);
  return key;
}
