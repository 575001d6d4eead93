import type { Readable } from 'node:stream';

/** A stored file as `FileStorage` describes it. */
export interface StoredFile {
  key: string;
  bytes: number;
}

/** A file as a listing describes it. */
export interface ListedFile extends StoredFile {
  modifiedAt: Date;
}

/**
 * Where the service keeps files it makes or receives (exports, delivered reports, the data hub's
 * drop): a strategy, so that several instances can share a bucket instead of one disk. Keys are
 * relative paths of `[A-Za-z0-9._/-]` the caller builds; a write is all or nothing (readers never
 * see half a file, and a failed write leaves nothing under its key). The storage StorageModule provides
 * fails a full disk, a refused access and a missing bucket as a StorageFailure naming it.
 */
export interface FileStorage {
  /** Streams `content` into `key`, replacing what was there once it is complete. */
  write(key: string, content: Readable): Promise<StoredFile>;
  /** The file's bytes, or null when there is no such file. */
  open(key: string): Promise<{ bytes: number; content: Readable } | null>;
  /** Removes the file; nothing when there is none. */
  delete(key: string): Promise<void>;
  /** Every complete file whose key starts with `prefix` (`''` or ending in `/`), at any depth, sorted by key. */
  list(prefix: string): Promise<ListedFile[]>;
}

export const FILE_STORAGE = Symbol('FileStorage');

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Whether `key` is one a caller could have built, the same file on every strategy: no empty or `.`
 * segment (a disk path would fold `a//b` and `a/./b` into `a/b`, S3 would not) and no `..`.
 */
export function isFileKey(key: string): boolean {
  return key.length <= 512 && !key.includes('..') && key.split('/').every((segment) => SEGMENT.test(segment) && segment !== '.');
}

/** Refuses a key that could leave the storage's root (absolute, `..`) or carry odd characters. */
export function checkedKey(key: string): string {
  if (!isFileKey(key)) throw new Error(`not a file storage key: ${JSON.stringify(key)}`);
  return key;
}

/** Refuses a listing prefix other than `''` or a key followed by `/`. */
export function checkedPrefix(prefix: string): string {
  if (prefix !== '' && !(prefix.endsWith('/') && isFileKey(prefix.slice(0, -1)))) {
    throw new Error(`not a file storage prefix: ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

/** Files in key order, by code unit as S3 sorts (not by locale). */
export function sortedByKey<T extends { key: string }>(files: T[]): T[] {
  return files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
