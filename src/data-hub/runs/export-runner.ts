import { Injectable } from '@nestjs/common';
import iconv from 'iconv-lite';

import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { formulaSafeText, type FormulaSafety } from '../../common/formula-safety.js';
import { ConnectionFailure } from '../connectors/connection-failure.js';
import type { FileLocation } from '../connectors/connector.js';
import { renderTemplate } from '../connectors/file-template.js';
import { measuredStream } from '../connectors/measured-stream.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { RunCounts } from '../entities/run.entity.js';
import { applyTransforms } from '../mappings/transforms/registry.js';
import { TransformError } from '../mappings/transforms/transform.js';
import { type CellValue } from '../../infra/tabular/table-rows.js';
import type { FieldValue, Structure } from '../structures/structures.js';
import type { ImportOutcome } from './import-runner.js';
import { RECORD_EXPORTS } from './record-exports.js';
import type { RowError } from './row-mapper.js';
import type { RunRequest } from './run-request.js';
import { RunRowsWriter } from './run-records.js';
import { RunsDatabase } from './runs-database.js';
import { StoreService } from '../../stores/store.service.js';
import { csvWriter } from '../../infra/tabular/csv-writer.js';
import type { FileEncoding, SourceFormat } from '../../infra/tabular/formats.js';
import { jsonlWriter } from '../../infra/tabular/jsonl-writer.js';
import type { TableWriter } from '../../infra/tabular/table-writer.js';
import { xlsxWriter } from '../../infra/tabular/xlsx-writer.js';
import { countDataHubRows } from '../../infra/telemetry/metrics.js';
import { ReportReads } from '../../infra/database/report-reads.js';

/** An export's request: a run's, and what its CSV or XLSX cells do with text that would be a formula. */
export type ExportRequest = RunRequest & { formulaSafety: FormulaSafety };

export type ExportOutcome = Omit<ImportOutcome, 'status'> & { status: 'succeeded' | 'failed' };

/** A store's record by its structure's field names, as the store holds it. */
type StoreRecord = Record<string, FieldValue>;
/** A record as the file's row: the mapping's columns' values, in the mapping's order. */
type ExportRow = CellValue[];

/** Records read from the store at a time, and rows handed to the file at a time. */
const BATCH_RECORDS = 1000;

/**
 * The store's records of a structure, a batch at a time, by keyset: each batch is read by the
 * structure's unique key index, and no more than a batch is in memory. Whole numbers PostgreSQL gives
 * as text (an order's `bigint` number) are numbers.
 */
async function* storeRecords(client: PoolClient, storeId: string, structure: Structure): AsyncGenerator<StoreRecord[]> {
  const numbers = structure.fields.filter((field) => field.type === 'integer' || field.type === 'money').map((field) => field.name);
  let after: string | null = null;
  for (;;) {
    const rows: StoreRecord[] = await RECORD_EXPORTS[structure.name].read<StoreRecord>(client, storeId, after, BATCH_RECORDS);
    if (rows.length === 0) return;
    after = String(rows[rows.length - 1][structure.key]);
    for (const record of rows) for (const name of numbers) if (typeof record[name] === 'string') record[name] = Number(record[name]);
    yield rows;
    if (rows.length < BATCH_RECORDS) return;
  }
}

const WINDOWS_1256 = 'windows-1256';

/** Whether Windows-1256 has every character of the value (iconv-lite would write `?` for one it lacks). */
function fitsWindows1256(value: CellValue): boolean {
  if (Array.isArray(value)) return value.every(fitsWindows1256);
  if (typeof value !== 'string' || /^[\x00-\x7f]*$/.test(value)) return true;
  return iconv.decode(iconv.encode(value, WINDOWS_1256), WINDOWS_1256) === value;
}

const LIST_IN_A_CELL = {
  code: 'not_a_value',
  message_en: 'A list is not a cell of a CSV or XLSX file: join it (concat) or pick one of its items.',
  message_ar: 'القائمة ليست خلية في ملف CSV أو XLSX: اجمعها (concat) أو اختر أحد عناصرها.',
};

function notEncodable(value: CellValue) {
  const text = JSON.stringify(value).slice(0, 40);
  return {
    code: 'not_encodable',
    message_en: `${text} has characters that Windows-1256 lacks: set the flow’s encoding to utf-8, or change the value with a transform.`,
    message_ar: `في ${text} محارف لا يحويها ترميز Windows-1256: اضبط ترميز المسار على utf-8، أو غيّر القيمة بتحويل.`,
  };
}

const AS_IT_IS = (text: string) => text;

/**
 * How a CSV or XLSX cell's text is written: under `escape`, text a spreadsheet would run as a formula
 * behind an apostrophe, in either format. An XLSX string cell is no formula when opened, but it becomes
 * one when a person edits it or saves the sheet as CSV (OWASP ASVS 5.0 V1.2.10 names XLSX alike). A
 * JSON line is read by programs, never by a spreadsheet: its text is the store's, whatever the setting.
 */
function cellTextOf(format: SourceFormat, formulaSafety: FormulaSafety): (text: string) => string {
  return format !== 'jsonl' && formulaSafety === 'escape' ? formulaSafeText : AS_IT_IS;
}

/**
 * A store's record through an export mapping: each column's structure field (or fields, as a list)
 * through its transforms, text written as `cellText` says (numbers, booleans and empty cells as they
 * are). A value the file cannot hold is refused as a transform's failure is: a list in a CSV or XLSX
 * cell, text with characters a Windows-1256 file has no bytes for.
 */
class ExportRowMapper {
  private readonly listsAllowed: boolean;
  private readonly windows1256: boolean;

  constructor(
    private readonly fields: readonly MappingField[],
    format: SourceFormat,
    encoding: FileEncoding,
    private readonly cellText: (text: string) => string,
  ) {
    this.listsAllowed = format === 'jsonl';
    this.windows1256 = format !== 'xlsx' && encoding === WINDOWS_1256;
  }

  map(record: StoreRecord): { row: ExportRow } | { errors: RowError[] } {
    const row: ExportRow = [];
    const errors: RowError[] = [];
    for (const field of this.fields) {
      const raw: CellValue = field.sources
        ? field.sources.map((source) => record[source])
        : field.source === undefined
          ? null
          : record[field.source];
      let value: CellValue;
      try {
        value = applyTransforms(raw, field.transforms);
      } catch (error) {
        if (!(error instanceof TransformError)) throw error;
        errors.push({ field: field.target, ...error.failure });
        continue;
      }
      if (Array.isArray(value) && !this.listsAllowed) errors.push({ field: field.target, ...LIST_IN_A_CELL });
      else if (this.windows1256 && !fitsWindows1256(value)) errors.push({ field: field.target, ...notEncodable(value) });
      else row.push(typeof value === 'string' ? this.cellText(value) : value);
    }
    return errors.length > 0 ? { errors } : { row };
  }
}

/**
 * The file of an export: CSV (no byte order mark: another system may read the file, and must get the
 * store's values) or JSON lines, in UTF-8 or Windows-1256; or XLSX, a bold, frozen header row of the
 * columns, each value in a cell of its type, nothing rescaled (amounts stay in minor units, as the
 * mapping gives them). Rows come with their text as the flow's formula safety has it.
 */
function openExportFile(format: SourceFormat, columns: readonly string[], encoding: FileEncoding): TableWriter {
  if (format === 'csv') return csvWriter({ header: columns, encoding });
  if (format === 'jsonl') return jsonlWriter({ columns, encoding });
  return xlsxWriter({ columns: columns.map((header) => ({ header, width: 20 })), sheetName: 'Export' });
}

/**
 * A file streamed to a location under its name while it is made. The location has it whole once `end`
 * resolves, or has nothing under the name: each kind of location writes aside and moves the file into
 * place once complete, and drops what it has when the file fails.
 */
class Delivery {
  private readonly written: Promise<{ name: string; bytes: number; sha256: string }>;
  /** Rejects as soon as the location fails, so that writing stops rather than wait for room. */
  private readonly failed: Promise<never>;

  constructor(
    location: FileLocation,
    name: string,
    private readonly file: TableWriter,
  ) {
    const { stream, bytes, sha256 } = measuredStream();
    // An error of the file's content fails the location's write, which reads `stream`, and the other way round.
    pipeline(file.content, stream).catch(() => undefined);
    this.written = location.write(name, stream).then(() => ({ name, bytes: bytes(), sha256: sha256() }));
    this.failed = new Promise<never>((_resolve, reject) => void this.written.catch(reject));
    this.failed.catch(() => undefined);
  }

  write(rows: ExportRow[]): Promise<void> {
    return Promise.race([this.file.write(rows), this.failed]);
  }

  /** Ends the file; resolves once the location has it whole, with its name, size and SHA-256. */
  async end(): Promise<{ name: string; bytes: number; sha256: string }> {
    await Promise.race([this.file.end(), this.failed]);
    return this.written;
  }

  /** Stops the file: the location drops what it has of it. */
  async abandon(error: Error): Promise<void> {
    this.file.content.destroy(error);
    await this.written.catch(() => undefined);
  }
}

/**
 * An export run (contract section 9, issue 12): the store's records of the mapping's structure read in
 * key order, a batch at a time, in one read-only snapshot; each record through the mapping into the
 * flow's format and streamed to the connection under the name the flow's template gives at the run's
 * start (in the flow's schedule's time zone, else the store's), from the read replica when there is one
 * that keeps up. A file is whole or absent: every kind of
 * location writes aside and moves it into place once complete. A record the mapping fails on is
 * rejected and listed, and the others are written. Counts: `read` records read, `rejected` those
 * refused, `unchanged` the others (an export changes no record), `sent` the rows the delivered file holds.
 * A preview computes the counts and the rejected rows (of the first records only, when asked) and writes nothing.
 */
@Injectable()
export class ExportRunner {
  constructor(
    private readonly database: RunsDatabase,
    private readonly reads: ReportReads,
    private readonly stores: StoreService,
  ) {}

  async run(request: ExportRequest): Promise<ExportOutcome> {
    const counts: RunCounts = { read: 0, changed: 0, created: 0, deactivated: 0, rejected: 0, unchanged: 0, sent: 0 };
    const name = request.file ?? (await this.fileName(request));
    const columns = request.fields.map((field) => field.target);
    const unwritable =
      request.format !== 'xlsx' && request.encoding === WINDOWS_1256 ? columns.find((column) => !fitsWindows1256(column)) : undefined;
    if (unwritable !== undefined) {
      return failed(counts, {
        code: 'not_encodable',
        message_en: `The column name ${unwritable} has characters that Windows-1256 lacks: rename the column in the mapping, or set the flow’s encoding to utf-8. ${name} was not written.`,
        message_ar: `في اسم العمود ${unwritable} محارف لا يحويها ترميز Windows-1256: أعد تسميته في الربط، أو اضبط ترميز المسار على utf-8. لم يُكتب ${name}.`,
      });
    }
    const cellText = cellTextOf(request.format, request.formulaSafety);
    const mapper = new ExportRowMapper(request.fields, request.format, request.encoding, cellText);
    const lists = new RunRowsWriter(this.database.pool, request.attempt);
    const controller = new AbortController();
    let location: FileLocation | undefined;
    let delivery: Delivery | undefined;
    // The records from the read replica while it keeps up (their snapshot is as old as its lag), else the primary.
    const client = (await this.reads.replicaClient()) ?? (await this.database.pool.connect());
    try {
      if (!request.preview) {
        location = await request.connector.location!(request.target, controller.signal);
        delivery = new Delivery(location, name, openExportFile(request.format, columns.map(cellText), request.encoding));
      }
      await client.query('begin isolation level repeatable read, read only');
      for await (const batch of storeRecords(client, request.storeId, request.structure)) {
        const records = request.firstRows === undefined ? batch : batch.slice(0, request.firstRows - counts.read);
        const rows: ExportRow[] = [];
        for (const record of records) {
          counts.read++;
          const mapped = mapper.map(record);
          if ('errors' in mapped) {
            counts.rejected++;
            await lists.add('rejected', {
              key: String(record[request.structure.key]),
              values: record,
              errors: mapped.errors as unknown as Record<string, unknown>[],
            });
          } else rows.push(mapped.row);
        }
        counts.unchanged += rows.length;
        await delivery?.write(rows);
        if (counts.read === request.firstRows) break;
      }
      await lists.flush();
      if (counts.read !== counts.created + counts.changed + counts.unchanged + counts.rejected) {
        throw new Error(`run ${request.attempt.jobId}: counts do not add up: ${JSON.stringify(counts)}`);
      }
      const file = (await delivery?.end()) ?? null;
      return { status: 'succeeded', counts: { ...counts, sent: counts.unchanged }, file, refusal: null, error: null };
    } catch (error) {
      await delivery?.abandon(error as Error);
      await lists.flush();
      if (!(error instanceof ConnectionFailure)) throw error;
      const reason = error.describe();
      return failed(counts, {
        code: reason.code,
        message_en: `${reason.message_en} ${name} was not written.`,
        message_ar: `${reason.message_ar} لم يُكتب ${name}.`,
      });
    } finally {
      countDataHubRows('export', counts.read);
      await client.query('rollback').then(
        () => client.release(),
        (error: Error) => client.release(error),
      );
      controller.abort();
      await location?.close().catch(() => undefined);
    }
  }

  /** The template's name at the run's start, read in the flow's schedule's time zone, else the store's. */
  private async fileName(request: ExportRequest): Promise<string> {
    const { rows } = await this.database.pool.query<{ started_at: Date; schedule_timezone: string | null }>(
      `select r.started_at, f.schedule_timezone from data_hub_runs r join data_hub_flows f on f.id = r.flow_id where r.id = $1`,
      [request.attempt.jobId],
    );
    const timezone = rows[0].schedule_timezone ?? (await this.stores.timezoneOf(request.storeId));
    return renderTemplate(request.fileTemplate, rows[0].started_at, timezone);
  }
}

function failed(counts: RunCounts, error: ExportOutcome['error']): ExportOutcome {
  return { status: 'failed', counts: { ...counts, sent: 0 }, file: null, refusal: null, error };
}
