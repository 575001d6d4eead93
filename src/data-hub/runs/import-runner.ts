import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { PoolClient } from 'pg';
import type { Bilingual } from '../../common/bilingual.js';
import {
  applySkuImport,
  createSkuStaging,
  planSkuImport,
  SKU_STAGING,
  skusToDeactivate,
  type SkuImportColumn,
} from '../../storefront/catalogue/sku-import.js';
import { ConnectionFailure } from '../connectors/connection-failure.js';
import type { ConnectionTarget, Connector, FileLocation, RemoteFile } from '../connectors/connector.js';
import type { SourceFormat } from '../connectors/file-fields.js';
import { templatePattern } from '../connectors/file-template.js';
import type { MappingField } from '../entities/mapping.entity.js';
import type { RunCounts } from '../entities/run.entity.js';
import type { Structure } from '../structures/structures.js';
import { FileRowsError, isRowProblem, readRows, type FileEncoding } from './file-rows.js';
import { RowMapper } from './row-mapper.js';
import { RunRowsWriter } from './run-rows.js';
import { RunsDatabase } from './runs-database.js';

/** The structures a run can import so far, and the variant columns each writes. */
export const SKU_STRUCTURES: Record<string, readonly SkuImportColumn[]> = {
  stock: ['stock'],
  prices: ['price', 'compare_at_price'],
};

export interface ImportRequest {
  runId: string;
  storeId: string;
  structure: Structure;
  fields: readonly MappingField[];
  format: SourceFormat;
  encoding: FileEncoding;
  fileTemplate: string;
  replace: boolean;
  shrinkGuard: { maxDeactivatePercent: number; maxDeactivateCount: number };
  /** A one-time threshold that replaces the flow's for this run (the count limit is lifted with it). */
  overridePercent?: number;
  connector: Connector;
  target: ConnectionTarget;
  preview: boolean;
  /** A file named by the request; else the newest matching the template. */
  file?: string;
  /**
   * A scheduled run: the files this flow imported before (by name and SHA-256). When the newest file
   * matching the template is one of them, or there is none, the run finds no new file (`missing`).
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
  file: { name: string; bytes: number; sha256: string } | null;
  refusal: Record<string, unknown> | null;
  error: RunFailure | null;
}

const BATCH_ROWS = 5000;

const failure = (code: string, message: Bilingual): RunFailure => ({ code, message_en: message.en, message_ar: message.ar });

/** A run that stops before writing anything: nothing changes, and its reason is recorded. */
class RunStopped extends Error {
  constructor(readonly outcome: Pick<ImportOutcome, 'status' | 'refusal' | 'error'>) {
    super(outcome.error?.code ?? 'refused');
  }
}

/**
 * An import run (contract section 9): the file read as a stream, each row mapped and checked (a rejected
 * row does not stop the others), the valid rows staged in the run's own transaction, compared with the
 * store's records, and applied all at once, or not at all: a failure, the shrink guard's refusal, a
 * preview and a killed process all leave the catalogue as it was. `read = created + changed + unchanged +
 * rejected` is checked before anything commits. A succeeded run's outcome commits with its changes.
 */
@Injectable()
export class ImportRunner {
  constructor(private readonly database: RunsDatabase) {}

  async run(request: ImportRequest): Promise<ImportOutcome> {
    const counts: RunCounts = { read: 0, changed: 0, created: 0, deactivated: 0, rejected: 0, unchanged: 0, sent: 0 };
    let file: ImportOutcome['file'] = null;
    const lists = new RunRowsWriter(this.database.pool, request.runId);
    const controller = new AbortController();
    let location: FileLocation | undefined;
    try {
      location = await request.connector.location!(request.target, controller.signal);
      const chosen = await chooseFile(location, request.fileTemplate, request.file).catch((error: unknown) => {
        if (request.imported && error instanceof ConnectionFailure && error.code === 'no_matching_file') return null;
        throw error;
      });
      if (!chosen || (request.imported && (await alreadyImported(location, chosen, request.imported)))) {
        const looked = chosen ? `${chosen.name} was imported already` : `no file matches ${request.fileTemplate}`;
        return {
          status: 'missing',
          counts,
          file,
          refusal: null,
          error: failure('no_new_file', {
            en: `No new file: ${looked}.`,
            ar: `لا ملف جديد: ${chosen ? `سبق استيراد ${chosen.name}` : `لا ملف يطابق ${request.fileTemplate}`}.`,
          }),
        };
      }
      const hashed = hashing();
      const content = (await location.read(chosen.name)).on('error', (error) => hashed.stream.destroy(error));
      const outcome = await this.importFile(request, content.pipe(hashed.stream), counts, lists, () => {
        file = { name: chosen.name, bytes: hashed.bytes(), sha256: hashed.digest() };
        return file;
      });
      await lists.flush();
      return { ...outcome, counts, file };
    } catch (error) {
      await lists.flush();
      if (error instanceof RunStopped) return { ...error.outcome, counts, file };
      if (error instanceof ConnectionFailure) return { status: 'failed', counts, file, refusal: null, error: error.describe() };
      if (error instanceof FileRowsError)
        return { status: 'failed', counts, file, refusal: null, error: failure(error.code, error.reason) };
      throw error;
    } finally {
      controller.abort();
      await location?.close().catch(() => undefined);
    }
  }

  private async importFile(
    request: ImportRequest,
    content: Readable,
    counts: RunCounts,
    lists: RunRowsWriter,
    fileRead: () => ImportOutcome['file'],
  ): Promise<Pick<ImportOutcome, 'status' | 'refusal' | 'error'>> {
    const columns = SKU_STRUCTURES[request.structure.name];
    const mapper = new RowMapper(request.structure, request.fields);
    const rows = readRows(content, { format: request.format, encoding: request.encoding, columns: mapper.sources });
    const header = await rows.header;
    if (request.format !== 'jsonl' && header.length > 0) {
      const missing = mapper.sources.filter((source) => !header.includes(source));
      if (missing.length > 0) {
        throw new RunStopped({
          status: 'failed',
          refusal: null,
          error: failure('missing_columns', {
            en: `The file has no column ${missing.join(', ')} (its header: ${header.join(', ')}). Nothing was imported.`,
            ar: `لا يحوي الملف العمود ${missing.join('، ')} (ترويسته: ${header.join('، ')}). لم يُستورد شيء.`,
          }),
        });
      }
    }
    const client = await this.database.pool.connect();
    try {
      await client.query('begin');
      await createSkuStaging(client);
      const staged = new StagingBatch(client, columns);
      for await (const item of rows) {
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
        await staged.add(item.line, mapped.values);
      }
      await staged.flush();
      fileRead();
      await this.rejectDuplicates(client, counts, lists);
      const plan = await planSkuImport(client, request.storeId, columns);
      for (const unknown of plan.unknown) {
        counts.rejected++;
        await lists.add('rejected', {
          line: unknown.line,
          key: unknown.key,
          errors: [
            {
              field: request.structure.key,
              code: 'unknown_key',
              message_en: `The store has no ${request.structure.key} ${unknown.key}.`,
              message_ar: `لا يوجد في المتجر ${request.structure.key} ${unknown.key}.`,
            },
          ],
        });
      }
      await client.query(
        `delete from ${SKU_STAGING} s where not exists (select 1 from product_variants v where v.store_id = $1 and v.sku = s.key)`,
        [request.storeId],
      );
      counts.changed = plan.changed;
      counts.unchanged = plan.unchanged;
      counts.deactivated = request.replace ? plan.wouldDeactivate : 0;
      if (counts.read !== counts.created + counts.changed + counts.unchanged + counts.rejected) {
        throw new Error(`run ${request.runId}: counts do not add up: ${JSON.stringify(counts)}`);
      }
      if (counts.read === 0) {
        throw new RunStopped({
          status: 'failed',
          refusal: null,
          error: failure('no_rows', { en: 'The file holds no rows: nothing was imported.', ar: 'لا يحوي الملف أي صفوف: لم يُستورد شيء.' }),
        });
      }
      if (request.replace) this.guard(request, plan.wouldDeactivate, plan.activeRecords);
      if (request.preview) {
        if (request.replace) for (const row of await skusToDeactivate(client, request.storeId)) await lists.add('deactivated', row);
        await client.query('rollback');
        return { status: 'succeeded', refusal: null, error: null };
      }
      const applied = await applySkuImport(client, request.storeId, columns, request.replace);
      const deactivatedLists = new RunRowsWriter(client, request.runId);
      for (const row of applied.deactivated) await deactivatedLists.add('deactivated', row);
      await deactivatedLists.flush();
      await client.query(`update data_hub_runs set status = 'succeeded', counts = $2, file = $3, finished_at = now() where id = $1`, [
        request.runId,
        JSON.stringify(counts),
        JSON.stringify(fileRead()),
      ]);
      await client.query('commit');
      return { status: 'succeeded', refusal: null, error: null };
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** A key the file holds twice: its first row counts, each later one is rejected naming the first. */
  private async rejectDuplicates(client: PoolClient, counts: RunCounts, lists: RunRowsWriter): Promise<void> {
    const { rows } = await client.query<{ line: number; key: string; first: number }>(
      `delete from ${SKU_STAGING} s using (select line, min(line) over (partition by key) as first from ${SKU_STAGING}) d
       where s.line = d.line and d.line <> d.first returning s.line, s.key, d.first`,
    );
    for (const row of rows.sort((a, b) => a.line - b.line)) {
      counts.rejected++;
      await lists.add('rejected', {
        line: row.line,
        key: row.key,
        errors: [
          {
            field: null,
            code: 'duplicate_key',
            message_en: `${row.key} is also on line ${row.first}, which counts.`,
            message_ar: `${row.key} موجود أيضًا في السطر ${row.first}، وهو المعتمد.`,
          },
        ],
      });
    }
  }

  /** The shrink guard: a replace run over either threshold is refused before anything is written. */
  private guard(request: ImportRequest, wouldDeactivate: number, activeRecords: number): void {
    const percent = activeRecords === 0 ? 0 : Math.round((wouldDeactivate / activeRecords) * 10_000) / 100;
    const threshold = request.overridePercent ?? request.shrinkGuard.maxDeactivatePercent;
    const overCount = request.overridePercent === undefined && wouldDeactivate > request.shrinkGuard.maxDeactivateCount;
    if (percent <= threshold && !overCount) return;
    const limit = overCount ? `${request.shrinkGuard.maxDeactivateCount} records` : `${threshold}%`;
    throw new RunStopped({
      status: 'refused',
      error: null,
      refusal: {
        code: 'shrink_guard',
        wouldDeactivate,
        activeRecords,
        percent,
        threshold: { maxDeactivatePercent: threshold, maxDeactivateCount: request.shrinkGuard.maxDeactivateCount },
        message_en: `This run would deactivate ${wouldDeactivate} of ${activeRecords} active records (${percent}%), more than the limit of ${limit}. Nothing was changed. Check the file; if it is right, raise the threshold or run once with an override.`,
        message_ar: `كان هذا التشغيل سيوقف ${wouldDeactivate} من ${activeRecords} سجلًا نشطًا (${percent}%)، أي أكثر من الحد (${limit}). لم يتغير شيء. تحقق من الملف؛ وإن كان صحيحًا فارفع الحد أو شغّله مرة واحدة مع تجاوز.`,
      },
    });
  }
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

/** A pass-through that counts and hashes what the file holds. */
function hashing() {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes, digest: () => (digest ??= hash.digest('hex')) };
}

/** Valid rows into the staging table, several thousand per statement. */
class StagingBatch {
  private lines: number[] = [];
  private keys: string[] = [];
  private values: Record<SkuImportColumn, (number | null)[]> = { stock: [], price: [], compare_at_price: [] };

  constructor(
    private readonly client: PoolClient,
    private readonly columns: readonly SkuImportColumn[],
  ) {}

  async add(line: number, row: Record<string, unknown>): Promise<void> {
    this.lines.push(line);
    this.keys.push(row.sku as string);
    for (const column of ['stock', 'price', 'compare_at_price'] as const) {
      this.values[column].push(this.columns.includes(column) ? ((row[column] as number | null | undefined) ?? null) : null);
    }
    if (this.lines.length >= BATCH_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    await this.client.query(
      `insert into ${SKU_STAGING} (line, key, stock, price, compare_at_price)
       select * from unnest($1::int[], $2::text[], $3::int[], $4::int[], $5::int[])`,
      [this.lines, this.keys, this.values.stock, this.values.price, this.values.compare_at_price],
    );
    this.lines = [];
    this.keys = [];
    this.values = { stock: [], price: [], compare_at_price: [] };
  }
}
