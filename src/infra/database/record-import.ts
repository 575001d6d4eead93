import type { PoolClient } from 'pg';

/**
 * Bulk imports of keyed records (the data hub's import runs), inside the caller's transaction. The caller
 * stages a file's valid rows in `IMPORT_STAGING` (`line`, `key`, and the importer's file columns); the
 * module that owns the table plans (reading the store's records only) and applies, and lists what it
 * created or deactivated, or would, in `IMPORT_OUTCOME`. An empty cell (null) leaves a record's value as it is.
 */
export const IMPORT_STAGING = 'record_import_staging';
export const IMPORT_OUTCOME = 'record_import_outcome';

export type StagedType = 'text' | 'int' | 'boolean' | 'uuid';

export interface RowRejection {
  line: number;
  key: string;
  /** The row's values as staged, by the structure's field names: what a run's rejected rows show of it. */
  values: Record<string, unknown>;
  errors: { field: string; code: string; message_en: string; message_ar: string }[];
}

/** A row of the staging table, as `returning s.*` gives it. */
export type StagedRow = { line: number; key: string } & Record<string, unknown>;

/** A staged row the store cannot take (removed from the staging table), and why. */
export interface StagedRejection {
  row: StagedRow;
  errors: RowRejection['errors'];
}

/**
 * A staged row's values by the structure's field names: its key and each file column it filled (the ids
 * resolved since are the store's, not the file's; an empty cell, null, was not given).
 */
export function stagedValues(row: StagedRow, keyField: string, fileColumns: Readonly<Record<string, StagedType>>): Record<string, unknown> {
  const values: Record<string, unknown> = { [keyField]: row.key };
  for (const column of Object.keys(fileColumns)) if (row[column] !== null && row[column] !== undefined) values[column] = row[column];
  return values;
}

export interface ImportPlan {
  /** Staged rows the store cannot take (removed from the staging table). */
  rejected: RowRejection[];
  created: number;
  changed: number;
  unchanged: number;
  /** Active records the file does not hold: what `replace` would deactivate. */
  wouldDeactivate: number;
  /** Active records: the base of the shrink guard's share. */
  activeRecords: number;
}

export interface RecordImport {
  /** The staged columns the file fills, by the structure's field names. */
  readonly fileColumns: Readonly<Record<string, StagedType>>;
  /** Staged columns the importer fills itself (the ids it resolves). */
  readonly resolvedColumns: Readonly<Record<string, StagedType>>;
  /** Rejects what cannot be applied and counts what applying would do (deactivations only with `replace`). Writes nothing but the staging table. */
  plan(client: PoolClient, storeId: string, replace: boolean): Promise<ImportPlan>;
  /** Lists what applying would create and (with `replace`) deactivate, with no record ids. */
  listPlanned(client: PoolClient, storeId: string, replace: boolean): Promise<void>;
  /** Applies the staged rows and lists what it created and deactivated. */
  apply(client: PoolClient, storeId: string, replace: boolean): Promise<void>;
}

/** The session's staging table (dropped at commit) and outcome list (kept past it, dropped by `dropImportTables`). */
export async function createImportTables(client: PoolClient, importer: RecordImport): Promise<void> {
  const columns = Object.entries({ ...importer.fileColumns, ...importer.resolvedColumns }).map(([name, type]) => `${name} ${type}`);
  await client.query(`
    create temp table ${IMPORT_STAGING} (line int primary key, key text not null${columns.map((column) => `, ${column}`).join('')}) on commit drop;
    create temp table ${IMPORT_OUTCOME} (list text not null, line int, key text not null, record_id uuid) on commit preserve rows`);
}

export async function dropImportTables(client: PoolClient): Promise<void> {
  await client.query(`drop table if exists ${IMPORT_STAGING}, ${IMPORT_OUTCOME}`);
}

/** A slug or SKU a staged column names, resolved to the id of the store's record it refers to. */
export interface Reference {
  /** The staged column holding the referenced record's key. */
  field: string;
  /** The resolved column its id goes into. */
  into: string;
  table: string;
  key: string;
  /** What the merchant reads when it names nothing: "product", "category"… */
  noun: { en: string; ar: string };
}

/** Resolves each reference and removes the rows naming a record the store does not have (every such field of a row is listed). */
export async function resolveReferences(client: PoolClient, storeId: string, references: readonly Reference[]): Promise<StagedRejection[]> {
  for (const reference of references) {
    await client.query(
      `update ${IMPORT_STAGING} s set ${reference.into} = r.id from ${reference.table} r
       where r.store_id = $1 and r.${reference.key} = s.${reference.field}`,
      [storeId],
    );
  }
  if (references.length === 0) return [];
  const unresolved = references.map((reference) => `(s.${reference.field} is not null and s.${reference.into} is null)`).join(' or ');
  const { rows } = await client.query<StagedRow>(`delete from ${IMPORT_STAGING} s where ${unresolved} returning s.*`);
  return rows
    .sort((a, b) => a.line - b.line)
    .map((row) => ({
      row,
      errors: references
        .filter((reference) => row[reference.field] !== null && row[reference.into] === null)
        .map((reference) => ({
          field: reference.field,
          code: 'unknown_reference',
          message_en: `The store has no ${reference.noun.en} ${row[reference.field]}.`,
          message_ar: `لا يوجد في المتجر ${reference.noun.ar} ${row[reference.field]}.`,
        })),
    }));
}

/** How a table's records are matched, changed, created and deactivated by an import. */
export interface KeyedRecords {
  table: string;
  /** The record's column the staged key matches. */
  key: string;
  /** The structure's name for the key, as a rejected row names the field. */
  keyField: string;
  /** Staged column → the record's column it sets. */
  sets: Readonly<Record<string, string>>;
  /** Set on every changed record besides (`updated_at = now()`). */
  touch?: string;
  /** A record the store lacks is created with these values (record column → SQL over staged `s`; `$1` is the store); else its row is rejected. */
  creates?: Readonly<Record<string, string>>;
  /** Which records count as active, and how `replace` deactivates one the file does not hold. */
  deactivation?: { active: string; set: string };
  noun: { en: string; ar: string };
}

/**
 * The one way an import plans and applies over a table of keyed records. Records are locked in id order
 * before they change (as checkout takes variants), and only those that change: an import and a checkout
 * cannot deadlock, and unchanged records are not rewritten.
 */
export class KeyedImport implements RecordImport {
  constructor(
    private readonly records: KeyedRecords,
    readonly fileColumns: Readonly<Record<string, StagedType>>,
    readonly resolvedColumns: Readonly<Record<string, StagedType>> = {},
    private readonly steps: {
      /** Before planning: resolve references, rejecting rows that name nothing. */
      resolve?: (client: PoolClient, storeId: string) => Promise<StagedRejection[]>;
      /** After applying, in the same transaction (e.g. derived columns). */
      applied?: (client: PoolClient, storeId: string) => Promise<void>;
    } = {},
  ) {}

  private get match(): string {
    return `r.store_id = $1 and r.${this.records.key} = s.key`;
  }

  private get differs(): string {
    return Object.entries(this.records.sets)
      .map(([staged, column]) => `(s.${staged} is not null and s.${staged} is distinct from r.${column})`)
      .join(' or ');
  }

  private notInFile(): string {
    return `r.store_id = $1 and ${this.records.deactivation!.active}
      and not exists (select 1 from ${IMPORT_STAGING} s where s.key = r.${this.records.key})`;
  }

  async plan(client: PoolClient, storeId: string, replace: boolean): Promise<ImportPlan> {
    const rejected = (await this.steps.resolve?.(client, storeId)) ?? [];
    if (!this.records.creates) {
      const { rows } = await client.query<StagedRow>(
        `delete from ${IMPORT_STAGING} s where not exists (select 1 from ${this.records.table} r where ${this.match}) returning s.*`,
        [storeId],
      );
      for (const row of rows) {
        rejected.push({
          row,
          errors: [
            {
              field: this.records.keyField,
              code: 'unknown_key',
              message_en: `The store has no ${this.records.noun.en} ${row.key}.`,
              message_ar: `لا يوجد في المتجر ${this.records.noun.ar} ${row.key}.`,
            },
          ],
        });
      }
    }
    await client.query(`analyze ${IMPORT_STAGING}`);
    const { rows } = await client.query<{ created: number; changed: number; unchanged: number }>(
      `select count(*) filter (where r.id is null)::int as created,
              count(*) filter (where r.id is not null and (${this.differs}))::int as changed,
              count(*) filter (where r.id is not null and not (${this.differs}))::int as unchanged
       from ${IMPORT_STAGING} s left join ${this.records.table} r on ${this.match}`,
      [storeId],
    );
    let deactivation = { wouldDeactivate: 0, activeRecords: 0 };
    if (replace && this.records.deactivation) {
      // A join, not `not exists` inside the filter: that one is a subplan run once per record.
      const { rows: active } = await client.query<{ would: number; active: number }>(
        `select count(*) filter (where s.key is null)::int as would, count(*)::int as active
         from ${this.records.table} r left join ${IMPORT_STAGING} s on s.key = r.${this.records.key}
         where r.store_id = $1 and ${this.records.deactivation.active}`,
        [storeId],
      );
      deactivation = { wouldDeactivate: active[0].would, activeRecords: active[0].active };
    }
    return {
      rejected: rejected
        .map(({ row, errors }) => ({
          line: row.line,
          key: row.key,
          values: stagedValues(row, this.records.keyField, this.fileColumns),
          errors,
        }))
        .sort((a, b) => a.line - b.line),
      ...rows[0],
      ...deactivation,
    };
  }

  async listPlanned(client: PoolClient, storeId: string, replace: boolean): Promise<void> {
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, line, key)
       select 'created', s.line, s.key from ${IMPORT_STAGING} s where not exists (select 1 from ${this.records.table} r where ${this.match})`,
      [storeId],
    );
    if (replace && this.records.deactivation) {
      await client.query(
        `insert into ${IMPORT_OUTCOME} (list, key, record_id)
         select 'deactivated', r.${this.records.key}, r.id from ${this.records.table} r where ${this.notInFile()}`,
        [storeId],
      );
    }
  }

  async apply(client: PoolClient, storeId: string, replace: boolean): Promise<void> {
    const { table, key, creates, deactivation, touch } = this.records;
    const deactivating = replace && deactivation !== undefined;
    // One set of ids (a semi-join over a union: `exists … or …` would run a subplan per record), locked in order.
    await client.query(
      `select r.id from ${table} r
       where r.id in (
         select r.id from ${table} r join ${IMPORT_STAGING} s on ${this.match} where ${this.differs}
         ${deactivating ? `union all select r.id from ${table} r where ${this.notInFile()}` : ''})
       order by r.id for no key update`,
      [storeId],
    );
    if (creates) {
      const columns = Object.keys(creates);
      await client.query(
        `with created as (
           insert into ${table} (store_id, ${key}, ${columns.join(', ')})
           select $1, s.key, ${Object.values(creates).join(', ')} from ${IMPORT_STAGING} s
           where not exists (select 1 from ${table} r where ${this.match}) order by s.line
           returning id, ${key} as key)
         insert into ${IMPORT_OUTCOME} (list, line, key, record_id)
         select 'created', s.line, c.key, c.id from created c join ${IMPORT_STAGING} s on s.key = c.key`,
        [storeId],
      );
    }
    const assignments = Object.entries(this.records.sets).map(([staged, column]) => `${column} = coalesce(s.${staged}, r.${column})`);
    if (touch) assignments.push(touch);
    await client.query(
      `update ${table} r set ${assignments.join(', ')} from ${IMPORT_STAGING} s where ${this.match} and (${this.differs})`,
      [storeId],
    );
    if (deactivating) {
      await client.query(
        `with deactivated as (update ${table} r set ${deactivation.set} where ${this.notInFile()} returning r.${key} as key, r.id)
         insert into ${IMPORT_OUTCOME} (list, key, record_id) select 'deactivated', key, id from deactivated`,
        [storeId],
      );
    }
    await this.steps.applied?.(client, storeId);
  }
}
