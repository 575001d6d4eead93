import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import type { Readable } from 'node:stream';
import type { AdminPrincipal } from '../../auth/principal.js';
import { ApiError } from '../../common/errors/api-error.js';
import { formulaSafeText } from '../../common/formula-safety.js';
import type { Locale } from '../../common/locale.js';
import { UUID_PATTERN } from '../../common/pagination/cursor.js';
import { csvWriter } from '../../infra/tabular/csv-writer.js';
import type { CellValue } from '../../infra/tabular/table-rows.js';
import type { TableWriter } from '../../infra/tabular/table-writer.js';
import { xlsxWriter } from '../../infra/tabular/xlsx-writer.js';
import type { MappingField } from '../entities/mapping.entity.js';
import { structureNamed, type Structure } from '../structures/structures.js';
import { RowMapper } from './row-mapper.js';

export type RejectedFileFormat = 'csv' | 'xlsx';

export const REJECTED_FILE_TYPES: Record<RejectedFileFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Rejected rows read from the database at a time: memory holds a page, not the list. */
const PAGE_ROWS = 1000;

const WORDS: Record<Locale, { line: string; reasons: string; separator: string; sheet: string }> = {
  en: { line: 'line', reasons: 'reasons', separator: '; ', sheet: 'Rejected rows' },
  ar: { line: 'السطر', reasons: 'الأسباب', separator: '؛ ', sheet: 'الصفوف المرفوضة' },
};

export interface RejectedFile {
  name: string;
  contentType: string;
  /** The file's bytes, written as they are read: the rows are read a page at a time while the caller streams it. */
  content: Readable;
}

interface RejectedRow {
  position: number;
  line: number | null;
  key: string | null;
  values: Record<string, unknown> | null;
  errors: { field: string | null; message_en: string; message_ar: string }[] | null;
}

interface RunSource {
  lists_purged_at: string | null;
  direction: 'import' | 'export';
  structure: string | null;
  fields: MappingField[] | null;
}

/**
 * A run's rejected rows as a file to fix and upload again (contract section 11): the columns of the
 * source as the rows hold them (the mapping's source columns first, in its order, then any other column
 * the rows had), then the row's line and its reasons in the caller's language, each prefixed by the
 * column (or field) it concerns. Text a spreadsheet would run as a formula is escaped, as exports do.
 */
@Injectable()
export class RejectedFiles {
  private readonly logger = new Logger(RejectedFiles.name);

  constructor(private readonly em: EntityManager) {}

  async open(admin: AdminPrincipal, runId: string, format: RejectedFileFormat): Promise<RejectedFile> {
    const run = await this.source(admin, runId);
    const structure = run.structure ? structureNamed(run.structure) : undefined;
    const fields = run.fields ?? [];
    // An import's row refused once compared with the store (it names its key) holds what it would have written, by field.
    const byField = run.direction === 'import' && structure !== undefined && fields.length > 0;
    const sources = fields.flatMap((field) => field.sources ?? (field.source === undefined ? [] : [field.source]));
    const columns = [...new Set([...sources, ...(await this.otherColumns(runId, byField))])];
    const words = WORDS[admin.locale];
    const lineHeader = uniqueName(words.line, columns);
    const reasonsHeader = uniqueName(words.reasons, [...columns, lineHeader]);
    const sourceHeaders = columns.map(formulaSafeText);
    const writer: TableWriter =
      format === 'csv'
        ? csvWriter({ header: [...sourceHeaders, lineHeader, reasonsHeader], byteOrderMark: true })
        : xlsxWriter({
            columns: [
              ...sourceHeaders.map((header) => ({ header, width: 20 })),
              { header: lineHeader, width: 8 },
              { header: reasonsHeader, width: 60 },
            ],
            sheetName: words.sheet,
            rightToLeft: admin.locale === 'ar',
          });
    const cells = new RejectedCells(columns, fields, byField ? structure : undefined, run.direction, admin.locale);
    void fill(writer, this.pages(runId), (row) => cells.of(row)).catch((error: Error) => {
      if (!(error instanceof DownloadClosed)) this.logger.warn(`run ${runId}: its rejected rows' file stopped: ${error.message}`);
      writer.content.destroy(error);
    });
    return { name: `run-${runId}-rejected.${format}`, contentType: REJECTED_FILE_TYPES[format], content: writer.content };
  }

  /** The run's flow direction and mapping version; 404 for another store's run, 410 once its lists were purged. */
  private async source(admin: AdminPrincipal, runId: string): Promise<RunSource> {
    if (!UUID_PATTERN.test(runId)) throw new ApiError('NOT_FOUND');
    const { rows } = await sql<RunSource>`
      select r.lists_purged_at, f.direction, m.structure, v.fields
      from data_hub_runs r
      join data_hub_flows f on f.id = r.flow_id
      left join data_hub_mappings m on m.id = f.mapping_id
      left join data_hub_mapping_versions v on v.mapping_id = f.mapping_id and v.version = r.mapping_version
      where r.id = ${runId} and r.store_id = ${admin.storeId}`.execute(this.db());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    if (rows[0].lists_purged_at) throw new ApiError('run_lists_purged');
    return rows[0];
  }

  /** Columns the rows hold besides the mapping's, in the order they first appear (a row's own in name order). */
  private async otherColumns(runId: string, byField: boolean): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`
      select k.name from data_hub_run_rows r cross join lateral jsonb_object_keys(r."values") as k(name)
      where r.run_id = ${runId} and r.list = 'rejected' and jsonb_typeof(r."values") = 'object'
        ${byField ? sql`and r.key is null` : sql``}
      group by k.name order by min(r.position), k.name`.execute(this.db());
    return rows.map((row) => row.name);
  }

  private async *pages(runId: string): AsyncGenerator<RejectedRow[]> {
    let after = 0;
    for (;;) {
      const { rows } = await sql<RejectedRow>`
        select position, line, key, "values", errors from data_hub_run_rows
        where run_id = ${runId} and list = 'rejected' and position > ${after}
        order by position limit ${PAGE_ROWS}`.execute(this.db());
      if (rows.length > 0) yield rows;
      if (rows.length < PAGE_ROWS) return;
      after = rows[rows.length - 1].position;
    }
  }

  private db(): Kysely<unknown> {
    return this.em.getKysely() as Kysely<unknown>;
  }
}

/** The reader went away before the file was whole (not a failure of ours). */
class DownloadClosed extends Error {}

/** Writes the pages' rows, then ends the file; stops when the reader goes away (the stream closes before it is written). */
async function fill(writer: TableWriter, pages: AsyncIterable<RejectedRow[]>, cellsOf: (row: RejectedRow) => CellValue[]) {
  const closed = new Promise<never>((_, reject) =>
    writer.content.once('close', () => reject(new DownloadClosed('the download ended before the file was written'))),
  );
  closed.catch(() => undefined);
  for await (const page of pages) await Promise.race([writer.write(page.map(cellsOf)), closed]);
  await Promise.race([writer.end(), closed]);
}

/** A rejected row's cells: its values under their columns, its line, its reasons. */
class RejectedCells {
  /** The column a field's error is about: its one source column, for an import. */
  private readonly columnOfField = new Map<string, string>();
  /** Per source column, the import fields that read it alone, each with a mapper of just that field. */
  private readonly readersOf = new Map<string, { target: string; mapper: RowMapper }[]>();

  constructor(
    private readonly columns: string[],
    fields: readonly MappingField[],
    /** Set when an import's rows refused once compared with the store hold values by field. */
    private readonly structure: Structure | undefined,
    direction: 'import' | 'export',
    private readonly locale: Locale,
  ) {
    for (const field of fields) {
      if (direction !== 'import' || field.source === undefined) continue;
      this.columnOfField.set(field.target, field.source);
      if (structure) {
        const readers = this.readersOf.get(field.source) ?? [];
        readers.push({ target: field.target, mapper: new RowMapper(structure, [field]) });
        this.readersOf.set(field.source, readers);
      }
    }
  }

  of(row: RejectedRow): CellValue[] {
    const values = row.values ?? {};
    const bySource = this.structure && row.key !== null ? this.sourceCells(values) : values;
    return [...this.columns.map((column) => cell(bySource[column])), row.line, this.reasons(row)];
  }

  private reasons(row: RejectedRow): string {
    const words = WORDS[this.locale];
    const reasons = (row.errors ?? []).map((error) => {
      const message = this.locale === 'ar' ? error.message_ar : error.message_en;
      return error.field === null ? message : `${this.columnOfField.get(error.field) ?? error.field}: ${message}`;
    });
    return formulaSafeText(reasons.join(words.separator));
  }

  /**
   * A row's values by field, put back under the source columns they came from. A value goes back only
   * where importing it again gives the same value through every field that reads that column (a trimmed
   * SKU, a quantity): one a transform made (money in minor units from `19.99`) is not what the file
   * held, and its cell is left empty.
   */
  private sourceCells(values: Record<string, unknown>): Record<string, unknown> {
    const cells: Record<string, unknown> = {};
    for (const [column, readers] of this.readersOf) {
      const candidate = readers.map(({ target }) => values[target]).find((value) => value !== undefined && value !== null);
      if (candidate === undefined) continue;
      const again = { line: 0, values: { [column]: candidate as CellValue } };
      const reproduced = readers.every(({ target, mapper }) => {
        const mapped = mapper.map(again);
        return 'values' in mapped && mapped.values[target] === (values[target] ?? null);
      });
      if (reproduced) cells[column] = candidate;
    }
    return cells;
  }
}

/** A value as a cell: text formula-safe, a list or an object as its JSON text. */
function cell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return formulaSafeText(typeof value === 'string' ? value : JSON.stringify(value));
}

/** `name`, or `name (2)`, `name (3)`… when the file already has a column of that name. */
function uniqueName(name: string, taken: readonly string[]): string {
  let candidate = name;
  for (let number = 2; taken.includes(candidate); number++) candidate = `${name} (${number})`;
  return candidate;
}
