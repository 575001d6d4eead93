import type { Readable } from 'node:stream';
import type { Bilingual } from '../../common/bilingual.js';
import { ApiError } from '../../common/errors/api-error.js';
import { ERRORS } from '../../common/errors/error-catalogue.js';
import type { FileStorage, ListedFile, StoredFile } from './file-storage.js';

const STORAGE_FAILURE_CODES = ['storage_full', 'storage_permission_denied', 'storage_bucket_missing'] as const;

export type StorageFailureCode = (typeof STORAGE_FAILURE_CODES)[number];

/** Why the service's own file storage did not take or give a file, as the merchant reads it (the error catalogue's words). */
export const STORAGE_FAILURES = Object.fromEntries(
  STORAGE_FAILURE_CODES.map((code) => [code, { en: ERRORS[code].message_en, ar: ERRORS[code].message_ar }]),
) as Record<StorageFailureCode, Bilingual>;

/** The local disk's error codes (errno) that name a reason. */
const ERRNO_FAILURES = new Map<unknown, StorageFailureCode>([
  ['ENOSPC', 'storage_full'],
  ['EDQUOT', 'storage_full'],
  ['EACCES', 'storage_permission_denied'],
  ['EPERM', 'storage_permission_denied'],
  ['EROFS', 'storage_permission_denied'],
]);

/** S3's error codes (the SDK's `name`) that name a reason; S3-compatible servers' own ones included. */
const S3_FAILURES = new Map<unknown, StorageFailureCode>([
  ['NoSuchBucket', 'storage_bucket_missing'],
  ['AccessDenied', 'storage_permission_denied'],
  ['AllAccessDisabled', 'storage_permission_denied'],
  ['InvalidAccessKeyId', 'storage_permission_denied'],
  ['SignatureDoesNotMatch', 'storage_permission_denied'],
  ['QuotaExceeded', 'storage_full'], // Ceph's bucket and user quotas
  ['XMinioStorageFull', 'storage_full'],
]);

/** HTTP 507 Insufficient Storage: what Swift and others answer when their disks are full. */
const INSUFFICIENT_STORAGE = 507;

/**
 * A file storage failure the service's operator has to mend (a full disk, a directory or bucket the
 * service may not write, a bucket that does not exist), recorded with its reason rather than as an
 * outage, and answered with it when a request meets it (507 or 503). The error it stands for is its
 * `cause`, for the logs.
 */
export class StorageFailure extends ApiError {
  constructor(
    override readonly code: StorageFailureCode,
    cause: unknown,
  ) {
    super(code);
    this.cause = cause;
  }

  /**
   * Whether a later attempt may succeed by itself: a full storage gets room as other writes fail and
   * remove their partial files, and as expired files are deleted; a refused access or a missing bucket
   * stays so until the operator acts, so trying again only delays the answer.
   */
  get retryable(): boolean {
    return this.code === 'storage_full';
  }

  describe(): { code: StorageFailureCode; message_en: string; message_ar: string } {
    return { code: this.code, message_en: STORAGE_FAILURES[this.code].en, message_ar: STORAGE_FAILURES[this.code].ar };
  }
}

/** A storage strategy's error as the StorageFailure it is, when it names one of the reasons; any other error as it was. */
export function classifiedStorageError(error: unknown): unknown {
  if (error instanceof StorageFailure || typeof error !== 'object' || error === null) return error;
  const { code, name, $metadata } = error as { code?: unknown; name?: unknown; $metadata?: { httpStatusCode?: number } };
  const reason =
    ERRNO_FAILURES.get(code) ?? S3_FAILURES.get(name) ?? ($metadata?.httpStatusCode === INSUFFICIENT_STORAGE ? 'storage_full' : undefined);
  return reason ? new StorageFailure(reason, error) : error;
}

/** A storage strategy whose failures that name a reason are StorageFailures: the one place both strategies' errors are told apart. */
export class ClassifiedFileStorage implements FileStorage {
  constructor(private readonly storage: FileStorage) {}

  write(key: string, content: Readable): Promise<StoredFile> {
    return classified(this.storage.write(key, content));
  }

  open(key: string): Promise<{ bytes: number; content: Readable } | null> {
    return classified(this.storage.open(key));
  }

  delete(key: string): Promise<void> {
    return classified(this.storage.delete(key));
  }

  list(prefix: string): Promise<ListedFile[]> {
    return classified(this.storage.list(prefix));
  }
}

function classified<T>(operation: Promise<T>): Promise<T> {
  return operation.catch((error: unknown) => {
    throw classifiedStorageError(error);
  });
}
