import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import type { Bilingual } from '../../common/bilingual.js';
import {
  createImportTables,
  IMPORT_STAGING,
  stagedValues,
  type CreationField,
  type RecordImport,
  type StagedRow,
  type StagedType,
} from '../../infra/database/record-import.js';
import { ConnectionFailure } from '../connectors/connection-failure.js';
import type { FileLocation, QueryRows, RemoteFile } from '../connectors/connector.js';
import { templatePattern } from '../connectors/file-template.js';
import { measuredStream } from '../connectors/measured-stream.js';
import type { RunCounts } from '../entities/run.entity.js';
import type { FieldValue, Structure } from '../structures/structures.js';
import { FileRowsError } from '../../infra/tabular/file-refusal.js';
import { readRows } from '../../infra/tabular/read-rows.js';
import { isRowProblem, type FileRows } from '../../infra/tabular/table-rows.js';
import { countDataHubRows } from '../../infra/telemetry/metrics.js';
import { RowMapper, type MappedRow } from './row-mapper.js';
import type { RunRequest } from './run-request.js';
import { RunRecords, RunRowsWriter } from './run-records.js';
import { RECORD_IMPORTS } from './record-imports.js';
import { RunsDatabase } from './runs-database.js';
import { shrinkGuardRefusal, type ShrinkGuard } from './shrink-guard.js';

export interface ImportRequest extends RunRequest {
  replace: boolean;
  shrinkGuard: ShrinkGuard;
  /** A one-time threshold that replaces the flow's for this run (the count limit is lifted with it). */
  overridePercent?: number;
  /**
   * A scheduled run: the files this flow imported before (by name and SHA-256). When the newest file
   * matching the template is one of them, or there is none, the run finds no new file (`missing`). A
   * query has no files: its rows are read afresh at every run.
   */
  imported?: { name: string; sha256: string }[];
}

export interface RunFailure {
  code: string;
  message_en: string;
  message_ar: string;
}

export interface ImportOutcome {
  status: 'succeeded' | 'failed' | 'refused' | 'missing';
  counts: RunCounts;
  /** The file read; `sha256` is null when only its first rows were. Null for a query's rows. */
  file: { name: string; bytes: number; sha256: string | null } | null;
  refusal: Record<string, unknown> | null;
  error: RunFailure | null;
}

/** Rows staged per statement: pg writes a statement's parameters on the thread requests share, about 5 µs a row. */
const BATCH_ROWS = 2000;

const failure = (code: string, message: Bilingual): RunFailure => ({ code, message_en: message.en, message_ar: message.ar });

/** Where an import's rows come from, as its failures name it. */
interface SourceWords {
  missingColumns(missing: string[], header: string[]): Bilingual;
  noRows: Bilingual;
  /** A later row of a key: the first one's line counts. */
  duplicate(key: string, firstLine: number): Bilingual;
}

const FILE_WORDS: SourceWords = {
  missingColumns: (missing, header) => ({
    en: `The file has no column ${missing.join(', ')} (its header: ${header.join(', ')}). Nothing was imported.`,
    ar: `لا يحوي الملف العمود ${missing.join('، ')} (ترويسته: ${header.join('، ')}). لم يُستورد شيء.`,
  }),
  noRows: { en: 'The file holds no rows: nothing was imported.', ar: 'لا يحوي الملف أي صفوف: لم يُستورد شيء.' },
  duplicate: (key, firstLine) => ({
    en: `${key} is also on line ${firstLine}, which counts.`,
    ar: `${key} موجود أيضًا في السطر ${firstLine}، وهو المعتمد.`,
  }),
};

const QUERY_WORDS: SourceWords = {
  missingColumns: (missing, header) => ({
    en: `The query answers no column ${missing.join(', ')} (its columns: ${header.join(', ')}). Nothing was imported.`,
    ar: `لا يُرجع الاستعلام العمود ${missing.join('، ')} (أعمدته: ${header.join('، ')}). لم يُستورد شيء.`,
  }),
  noRows: { en: 'The query answered no rows: nothing was imported.', ar: 'لم يُرجع الاستعلام أي صفوف: لم يُستورد شيء.' },
  duplicate: (key, firstRow) => ({
    en: `${key} is also in row ${firstRow} of the query’s answer, which counts.`,
    ar: `${key} موجود أيضًا في الصف ${firstRow} من نتيجة الاستعلام، وهو المعتمد.`,
  }),
};

/** An import's rows: a file's or a query's. */
interface ImportSource {
  rows: FileRows;
  /** Whether `rows.header` names every row's columns (JSON lines name their fields line by line). */
  namesColumns: boolean;
  words: SourceWords;
  /** Called once the rows are read (all of them, or not): the file as read, if it did not change meanwhile. */
  finishReading(whole: boolean): Promise<void>;
}

/** A run that stops before writing anything: nothing changes, and its reason is recorded. */
class RunStopped extends Error {
  constructor(readonly outcome: Pick<ImportOutcome, 'status' | 'refusal' | 'error'>) {
    super(outcome.error?.code ?? 'refused');
  }
}

/**
 * An import run (contract section 9): the file read as a stream (or a `database_read` query's rows
 * through a cursor), each row mapped and checked (a rejected row does not stop the others), the valid
 * rows staged in the run's own transaction, compared with the store's records, and applied all at once,
 * or not at all: a failure (the query's midway included), the shrink guard's refusal, a preview and a
 * killed process all leave the catalogue as it was. `read = created + changed + unchanged + rejected` is
 * checked before anything commits. A succeeded run's outcome commits with its changes.
 */
@Injectable()
export class ImportRunner {
  constructor(private readonly database: RunsDatabase) {}

  async run(request: ImportRequest): Promise<ImportOutcome> {
    const counts: RunCounts = { read: 0, changed: 0, created: 0, deactivated: 0, rejected: 0, unchanged: 0, sent: 0 };
    // The file as read, once it is: a failed run records it too.
    const reading: { file: ImportOutcome['file'] } = { file: null };
    const lists = new RunRowsWriter(this.database.pool, request.attempt);
    const mapper = new RowMapper(request.structure, request.fields);
    const controller = new AbortController();
    let location: FileLocation | undefined;
    let query: QueryRows | undefined;
    try {
      let source: ImportSource;
      if (request.connector.rows) {
        query = await request.connector.rows(request.target, controller.signal);
        source = { rows: query, namesColumns: true, words: QUERY_WORDS, finishReading: async () => undefined };
      } else {
        location = await request.connector.location!(request.target, controller.signal);
        const opened = await openFile(request, location, mapper, reading);
        if ('missing' in opened) return { ...opened.missing, counts, file: null };
        source = opened;
      }
      const outcome = await this.importRows(request, mapper, source, counts, lists, reading);
      await lists.flush();
      return { ...outcome, counts, file: reading.file };
    } catch (error) {
      await lists.flush();
      const file = reading.file;
      if (error instanceof RunStopped) return { ...error.outcome, counts, file };
      if (error instanceof ConnectionFailure) return { status: 'failed', counts, file, refusal: null, error: error.describe() };
      if (error instanceof FileRowsError)
        return { status: 'failed', counts, file, refusal: null, error: failure(error.code, error.reason) };
      throw error;
    } finally {
      countDataHubRows('import', counts.read);
      controller.abort();
      await location?.close().catch(() => undefined);
      await query?.close();
    }
  }

  private async importRows(
    request: ImportRequest,
    mapper: RowMapper,
    source: ImportSource,
    counts: RunCounts,
    lists: RunRowsWriter,
    reading: { file: ImportOutcome['file'] },
  ): Promise<Pick<ImportOutcome, 'status' | 'refusal' | 'error'>> {
    const { rows, words } = source;
    const header = await rows.header;
    if (source.namesColumns && header.length > 0) {
      const missing = mapper.sources.filter((column) => !header.includes(column));
      if (missing.length > 0) {
        throw new RunStopped({ status: 'failed', refusal: null, error: failure('missing_columns', words.missingColumns(missing, header)) });
      }
    }
    const importer = RECORD_IMPORTS[request.structure.name];
    return this.database.transaction(async (client) => {
      await createImportTables(client, importer);
      // A preview cannot write: only the session's temporary tables take rows.
      if (request.preview) await client.query('set local transaction_read_only = on');
      const staged = new StagingBatch(client, request.structure.key, importer.fileColumns, importer.clearable);
      const replace = request.replace && request.firstRows === undefined;
      let whole = true;
      for await (const item of rows) {
        if (counts.read === request.firstRows) {
          whole = false;
          break;
        }
        counts.read++;
        if (isRowProblem(item)) {
          counts.rejected++;
          await lists.add('rejected', {
            line: item.line,
            values: item.values ?? null,
            errors: [{ field: null, code: item.code, message_en: item.message_en, message_ar: item.message_ar }],
          });
          continue;
        }
        const mapped = mapper.map(item);
        if ('errors' in mapped) {
          counts.rejected++;
          await lists.add('rejected', {
            line: item.line,
            values: item.values,
            errors: mapped.errors as unknown as Record<string, unknown>[],
          });
          continue;
        }
        await staged.add(item.line, mapped);
      }
      await staged.flush();
      await source.finishReading(whole);
      await this.rejectDuplicates(client, counts, lists, words, importer, request.structure.key);
      const plan = await importer.plan(client, request.storeId, { replace, requiredToCreate: creationFields(request.structure) });
      for (const rejection of plan.rejected) {
        counts.rejected++;
        await lists.add('rejected', rejection);
      }
      counts.created = plan.created;
      counts.changed = plan.changed;
      counts.unchanged = plan.unchanged;
      counts.deactivated = replace ? plan.wouldDeactivate : 0;
      if (counts.read !== counts.created + counts.changed + counts.unchanged + counts.rejected) {
        throw new Error(`run ${request.attempt.jobId}: counts do not add up: ${JSON.stringify(counts)}`);
      }
      if (counts.read === 0) throw new RunStopped({ status: 'failed', refusal: null, error: failure('no_rows', words.noRows) });
      const refusal = replace
        ? shrinkGuardRefusal(request.shrinkGuard, request.overridePercent, plan.wouldDeactivate, plan.activeRecords)
        : null;
      if (refusal) throw new RunStopped({ status: 'refused', error: null, refusal });
      if (request.preview) {
        await importer.listPlanned(client, request.storeId, replace, plan.changed);
        await client.query('commit');
        await RunRecords.keepImportOutcome(client, request.attempt);
        return { status: 'succeeded', refusal: null, error: null };
      }
      await importer.apply(client, request.storeId, request.replace, plan.changed);
      await RunRecords.commitSucceeded(client, request.attempt, { status: 'succeeded', counts, file: reading.file });
      return { status: 'succeeded', refusal: null, error: null };
    });
  }

  /** A key the rows hold twice: its first row counts, each later one is rejected naming the first. */
  private async rejectDuplicates(
    client: PoolClient,
    counts: RunCounts,
    lists: RunRowsWriter,
    words: SourceWords,
    importer: RecordImport,
    keyField: string,
  ): Promise<void> {
    const { rows } = await client.query<StagedRow & { first_line: number }>(
      `delete from ${IMPORT_STAGING} s using (select line, min(line) over (partition by key) as first_line from ${IMPORT_STAGING}) d
       where s.line = d.line and d.line <> d.first_line returning s.*, d.first_line`,
    );
    for (const { first_line: firstLine, ...row } of rows.sort((a, b) => a.line - b.line)) {
      counts.rejected++;
      const message = words.duplicate(row.key, firstLine);
      await lists.add('rejected', {
        line: row.line,
        key: row.key,
        values: stagedValues(row, keyField, importer.fileColumns),
        errors: [{ field: null, code: 'duplicate_key', message_en: message.en, message_ar: message.ar }],
      });
    }
  }
}

/**
 * The file the run imports, opened: the one requested, or the newest matching the template; for a
 * scheduled run, `missing` when there is none or it was imported before. Its rows are read no further
 * than the file was long when the run began, and once read, the file must not have changed meanwhile.
 */
async function openFile(
  request: ImportRequest,
  location: FileLocation,
  mapper: RowMapper,
  reading: { file: ImportOutcome['file'] },
): Promise<ImportSource | { missing: Pick<ImportOutcome, 'status' | 'refusal' | 'error'> }> {
  const chosen = await chooseFile(location, request.fileTemplate, request.file).catch((error: unknown) => {
    if (request.imported && error instanceof ConnectionFailure && error.code === 'no_matching_file') return null;
    throw error;
  });
  if (!chosen || (request.imported && (await alreadyImported(location, chosen, request.imported)))) {
    const looked = chosen ? `${chosen.name} was imported already` : `no file matches ${request.fileTemplate}`;
    return {
      missing: {
        status: 'missing',
        refusal: null,
        error: failure('no_new_file', {
          en: `No new file: ${looked}.`,
          ar: `لا ملف جديد: ${chosen ? `سبق استيراد ${chosen.name}` : `لا ملف يطابق ${request.fileTemplate}`}.`,
        }),
      },
    };
  }
  const changed = (now: { en: string; ar: string }) =>
    new RunStopped({
      status: 'failed',
      refusal: null,
      error: failure('file_changed', {
        en: `${chosen.name} changed while it was read (${chosen.bytes} bytes when the run began, ${now.en}): nothing was imported. Run again once the file is complete.`,
        ar: `تغيّر ${chosen.name} أثناء قراءته (${chosen.bytes} بايت عند بدء التشغيل، ${now.ar}): لم يُستورد شيء. شغّله مجددًا حين يكتمل الملف.`,
      }),
    });
  // A file still being written is read no further than it was long when the run began.
  const hashed = measuredStream(chosen.bytes, () => changed({ en: 'longer now', ar: 'وهو أطول الآن' }));
  const content = (await location.read(chosen.name)).on('error', (error) => hashed.stream.destroy(error));
  return {
    rows: readRows(content.pipe(hashed.stream), { format: request.format, encoding: request.encoding, columns: mapper.sources }),
    namesColumns: request.format !== 'jsonl',
    words: FILE_WORDS,
    async finishReading(whole) {
      if (!whole) {
        reading.file = { name: chosen.name, bytes: chosen.bytes, sha256: null };
        return;
      }
      reading.file = { name: chosen.name, bytes: hashed.bytes(), sha256: hashed.sha256() };
      const now = (await location.list()).find((candidate) => candidate.name === chosen.name);
      if (
        !now ||
        now.bytes !== chosen.bytes ||
        now.modifiedAt.getTime() !== chosen.modifiedAt.getTime() ||
        reading.file.bytes !== chosen.bytes
      ) {
        throw changed(
          now
            ? {
                en: `${now.bytes} bytes now, modified ${now.modifiedAt.toISOString()}`,
                ar: `و${now.bytes} بايت الآن، عُدّل ${now.modifiedAt.toISOString()}`,
              }
            : { en: 'gone now', ar: 'ولم يعد موجودًا' },
        );
      }
    },
  };
}

/** The requested file, or the newest matching the template (ties broken by name). */
async function chooseFile(location: FileLocation, template: string, requested?: string): Promise<RemoteFile> {
  const files = await location.list();
  const pattern = templatePattern(template);
  const chosen = requested
    ? files.find((candidate) => candidate.name === requested)
    : files
        .filter((candidate) => pattern.test(candidate.name))
        .sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime() || b.name.localeCompare(a.name))[0];
  if (!chosen) {
    const what = requested ?? template;
    throw new ConnectionFailure('no_matching_file', { en: `Looked for: ${what}.`, ar: `المطلوب: ${what}.` });
  }
  return chosen;
}

/** Whether the file is one imported before: same name, and (read through) the same SHA-256. */
async function alreadyImported(location: FileLocation, file: RemoteFile, imported: { name: string; sha256: string }[]): Promise<boolean> {
  const earlier = imported.filter((candidate) => candidate.name === file.name).map((candidate) => candidate.sha256);
  if (earlier.length === 0) return false;
  const hash = createHash('sha256');
  for await (const chunk of await location.read(file.name)) hash.update(chunk as Buffer);
  return earlier.includes(hash.digest('hex'));
}

/** The fields besides the key that a row creating a record must give. */
function creationFields(structure: Structure): CreationField[] {
  return structure.fields
    .filter((field) => field.required && field.name !== structure.key)
    .map((field) => ({ field: field.name, label_en: field.label_en, label_ar: field.label_ar }));
}

/** Valid rows into the staging table, several thousand per statement: each field's value, and a flag per field it clears. */
class StagingBatch {
  private readonly columns: [string, StagedType][];
  private lines: number[] = [];
  private keys: string[] = [];
  private values: FieldValue[][];
  private clears: boolean[][];

  constructor(
    private readonly client: PoolClient,
    private readonly keyField: string,
    fileColumns: Readonly<Record<string, StagedType>>,
    private readonly clearable: readonly string[],
  ) {
    this.columns = Object.entries(fileColumns);
    this.values = this.columns.map(() => []);
    this.clears = clearable.map(() => []);
  }

  async add(line: number, row: MappedRow): Promise<void> {
    this.lines.push(line);
    this.keys.push(row.values[this.keyField] as string);
    this.columns.forEach(([name], index) => this.values[index].push(row.values[name] ?? null));
    this.clearable.forEach((field, index) => this.clears[index].push(row.cleared.includes(field)));
    if (this.lines.length >= BATCH_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    const names = [...this.columns.map(([name]) => name), ...this.clearable.map((field) => `clear_${field}`)];
    const types = [...this.columns.map(([, type]) => type), ...this.clearable.map(() => 'boolean')];
    await this.client.query(
      `insert into ${IMPORT_STAGING} (line, key${names.map((name) => `, ${name}`).join('')})
       select * from unnest($1::int[], $2::text[]${types.map((type, index) => `, $${index + 3}::${type}[]`).join('')})`,
      [this.lines, this.keys, ...this.values, ...this.clears],
    );
    this.lines = [];
    this.keys = [];
    this.values = this.columns.map(() => []);
    this.clears = this.clearable.map(() => []);
  }
}
