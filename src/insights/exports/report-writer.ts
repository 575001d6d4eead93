import { ApiError } from '../../common/errors/api-error.js';
import { codeIn, ERRORS } from '../../common/errors/error-catalogue.js';
import type { Locale } from '../../common/locale.js';
import { INTERRUPTED, PermanentFailure, type AttemptFailure } from '../../infra/jobs/tracked-job.js';
import type { FileStorage } from '../../infra/storage/file-storage.js';
import { StorageFailure } from '../../infra/storage/storage-failure.js';
import { NotificationFailedError } from '../../notifications/notifier.js';
import type { DateRange } from '../query/ranges.js';
import type { ReportRows } from '../query/report-rows.js';
import { openReportFile } from './report-file.js';
import { type FileFormat } from '../entities/insights-export.entity.js';

/** How often a file being written records how far it has got. */
const PROGRESS_EVERY_MS = 1000;

/**
 * Writes a report's whole table as a file into the storage under `key`, a batch of rows at a time
 * (the rows are read from PostgreSQL through a cursor while the bytes flow to the storage), telling
 * `progress` how many rows are written after the first batch, then about once a second (a file of
 * 100,000 rows can be written within a second: it still shows that it has begun). Nothing is left under the key if it fails.
 */
export async function writeReportFile(
  storage: FileStorage,
  key: string,
  table: ReportRows,
  format: FileFormat,
  language: Locale,
  progress: (rows: number) => Promise<void>,
): Promise<{ rows: number; bytes: number }> {
  const file = openReportFile({ format, columns: table.columns, language, currency: table.currency });
  const storing = storage.write(key, file.content);
  // The storage failing (a full disk) ends the writing at once, rather than leaving it waiting for room.
  const storageFailed = new Promise<never>((_, reject) => void storing.catch(reject));
  storageFailed.catch(() => undefined);
  let rows = 0;
  let reportedAt = Date.now();
  try {
    for await (const batch of table.batches) {
      await Promise.race([file.write(batch), storageFailed]);
      rows += batch.length;
      if (rows === batch.length || Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
        reportedAt = Date.now();
        await progress(rows);
      }
    }
    await Promise.race([file.end(), storageFailed]);
  } catch (error) {
    file.content.destroy(error as Error);
    await storing.catch(() => undefined);
    throw error;
  }
  return { rows, bytes: (await storing).bytes };
}

/** A file name of the title and the range, in any script, without what a file system or a header could trip on. */
export function fileNameOf(title: string, range: DateRange, format: FileFormat): string {
  const slug = title
    .normalize('NFC')
    .trim()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${slug || 'report'}_${range.from}_${range.to}.${format}`;
}

/**
 * Why a piece of background work failed, as the merchant reads it, and whether trying again could
 * help: a definition that no longer stands (a measure gone, a plan downgraded, a permission removed) is
 * refused the way its request would be, for good; a mail server or a database that did not answer is
 * tried again; the file storage says what failed (full: tried again, as room may be made; a refused
 * access or a missing bucket: for good, until the operator mends it).
 */
export function attemptFailureOf(error: unknown): AttemptFailure {
  if (error instanceof PermanentFailure) return { permanent: true, error: error.failure };
  if (error instanceof StorageFailure) return { permanent: !error.retryable, error: error.describe() };
  if (error instanceof ApiError && error.status < 500) {
    const message = error.options.message;
    return {
      permanent: true,
      error: {
        code: codeIn('admin', error.code),
        message_en: message?.en ?? ERRORS[error.code].message_en,
        message_ar: message?.ar ?? ERRORS[error.code].message_ar,
      },
    };
  }
  if (error instanceof NotificationFailedError) {
    return {
      permanent: false,
      error: {
        code: 'email_not_sent',
        message_en: `The mail server did not take the email (${error.reason}).`,
        message_ar: `لم يقبل خادم البريد الرسالة (${error.reason}).`,
      },
    };
  }
  return { permanent: false, error: INTERRUPTED };
}
