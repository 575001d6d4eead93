import type { ClassConstructor } from 'class-transformer';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Entitlement } from '../../common/permissions.js';
import type { ConnectionKind, PinnedHostKey } from '../entities/connection.entity.js';
import { ConnectionFailure } from './connection-failure.js';
import { FileFieldsError, readFileFields } from '../../infra/tabular/file-fields.js';
import { templatePattern } from './file-template.js';
import type { SourceFormat } from '../../infra/tabular/formats.js';
import type { FileRows } from '../../infra/tabular/table-rows.js';

/** A query's rows as a run reads them, a batch at a time from a cursor, until it is closed. */
export interface QueryRows extends FileRows {
  close(): Promise<void>;
}

/** How long a test may take, connecting included (contract section 9: "within 10 s"). */
export const CONNECTION_TEST_TIMEOUT_MS = 10_000;

/** A connection as a connector reaches it: its config and opened credentials, never anything else. */
export interface ConnectionTarget<Config = object, Credentials = object> {
  id: string;
  storeId: string;
  config: Config;
  credentials: Credentials | null;
  hostKey: PinnedHostKey | null;
}

/** What a passed test learnt: an SFTP server's host key, to pin on first contact. */
export interface TestResult {
  hostKey?: { algorithm: string; fingerprint: string };
}

export interface SourceField {
  name: string;
  /** A query column's PostgreSQL type; files name no types. */
  type?: string;
}

/** Where the fields came from: the newest matching file, or the query. */
export type FieldsSource = { kind: 'file'; name: string; bytes: number; modifiedAt: string } | { kind: 'query' };

export interface FieldsRequest {
  template?: string;
  format?: SourceFormat;
}

/**
 * One kind of connection (a strategy, chosen by `kind`): the shapes of its config and credentials,
 * the plan entitlement it needs, and how it is tested and read: a file kind through its `location`, a
 * query kind through its `rows` (read only, so never a flow's export). Failures the merchant can act on are
 * ConnectionFailure, whose text never holds a credential.
 */
export interface Connector {
  readonly kind: ConnectionKind;
  readonly configType: ClassConstructor<object>;
  readonly credentialsType: ClassConstructor<object> | null;
  readonly entitlement?: Entitlement;
  /** Connects for real and proves what a run will need; `signal` ends it at the deadline. */
  test(target: ConnectionTarget, signal: AbortSignal): Promise<TestResult>;
  fields(target: ConnectionTarget, request: FieldsRequest, signal: AbortSignal): Promise<{ source: FieldsSource; fields: SourceField[] }>;
  /** File kinds: the files at the connection's base path, opened for a run (closed by the caller; `signal` ends it). */
  location?(target: ConnectionTarget, signal: AbortSignal): Promise<FileLocation>;
  /** Query kinds: the query's rows, opened for an import run (closed by the caller; `signal` ends it). */
  rows?(target: ConnectionTarget, signal: AbortSignal): Promise<QueryRows>;
}

export const CONNECTORS = Symbol('Connectors');

/** A file at a connection's base path. */
export interface RemoteFile {
  name: string;
  bytes: number;
  modifiedAt: Date;
}

/**
 * The files at a connection's base path (an SFTP folder, a bucket prefix, the platform's drop), opened
 * for one piece of work and closed after it. Names are single path segments.
 */
export interface FileLocation {
  list(): Promise<RemoteFile[]>;
  read(name: string): Promise<Readable>;
  write(name: string, content: Readable): Promise<void>;
  remove(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Runs `work` on an opened location and closes it, whatever the outcome. */
export async function usingLocation<T>(location: FileLocation, work: (location: FileLocation) => Promise<T>): Promise<T> {
  try {
    return await work(location);
  } finally {
    await location.close();
  }
}

/**
 * What a run of a file connection needs, proved: the base path can be listed, and a small probe file
 * can be written where runs will write and deleted again (as Airbyte's S3 check does).
 */
export async function probeFileLocation(location: FileLocation): Promise<void> {
  await location.list();
  const probe = `.storefront-probe-${randomBytes(6).toString('hex')}`;
  await location.write(probe, Readable.from([Buffer.from('storefront connection test\n')]));
  await location.remove(probe);
}

/** The fields of the newest file matching `template` (ties broken by name), read from its start. */
export async function newestFileFields(
  location: FileLocation,
  template: string,
  format: SourceFormat,
): Promise<{ source: FieldsSource; fields: SourceField[] }> {
  const pattern = templatePattern(template);
  const newest = (await location.list())
    .filter((file) => pattern.test(file.name))
    .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || b.name.localeCompare(a.name))[0];
  if (!newest) throw new ConnectionFailure('no_matching_file', { en: `Template: ${template}.`, ar: `القالب: ${template}.` });
  const names = await readFileFields(await location.read(newest.name), format).catch((error: unknown) => {
    if (error instanceof FileFieldsError)
      throw new ConnectionFailure('file_unreadable', {
        en: `${newest.name}: ${error.reason.en}`,
        ar: `${newest.name}: ${error.reason.ar}`,
      });
    throw error;
  });
  return {
    source: { kind: 'file', name: newest.name, bytes: newest.bytes, modifiedAt: newest.modifiedAt.toISOString() },
    fields: names.map((name) => ({ name })),
  };
}

/**
 * Runs `work` until the deadline: then `signal` aborts (connectors close what they opened on it) and
 * the outcome is a `timeout` failure, whatever the work was waiting for.
 */
export async function withinDeadline<T>(timeoutMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ConnectionFailure('timeout'));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
