import type { PoolClient } from 'pg';

/**
 * Bulk imports of keyed records (the data hub's import runs), inside the caller's transaction. The caller
 * stages a file's valid rows in `IMPORT_STAGING` (`line`, `key`, the importer's file columns, and a
 * `clear_<field>` flag for each field it can clear); the module that owns the table plans (reading the
 * store's records only) and applies, and lists what it created, changed (each field before and after)
 * or deactivated, or would, in `IMPORT_OUTCOME`. An empty cell (null) leaves a record's value as it is,
 * unless its field is cleared.
 *
 * An undo takes a run back: the caller stages the run's lists in `UNDO_STAGING`, one row per record and
 * field it changed (a record it created: one row per field its deactivation sets, or one without a field
 * where it has none), and the owning module restores what nobody changed since, lists what it left as it
 * is in `IMPORT_OUTCOME` as conflicts, and what it restored and deactivated as a run lists them.
 */
export const IMPORT_STAGING = 'record_import_staging';
export const IMPORT_OUTCOME = 'record_import_outcome';
export const UNDO_STAGING = 'record_undo_staging';

/**
 * A field's change as a run's `changed` and `deactivated` lists keep it: the column's values (JSON), and
 * for a column holding an id, the values as a file writes them (a slug) that a merchant reads.
 */
export interface FieldChange {
  field: string;
  column: string;
  before: unknown;
  after: unknown;
  shownBefore?: unknown;
  shownAfter?: unknown;
}

export type StagedType = 'text' | 'int' | 'boolean' | 'uuid';

export interface RowRejection {
  line: number;
  key: string;
  /** The row's values as staged, by the structure's field names: what a run's rejected rows show of it. */
  values: Record<string, unknown>;
  /** `fields`: for `required_to_create`, every field the row leaves empty that creating its record needs. */
  errors: { field: string; code: string; fields?: string[]; message_en: string; message_ar: string }[];
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

/** A field a row leaves empty that creating its record needs, as a rejection names it. */
export interface CreationField {
  field: string;
  label_en: string;
  label_ar: string;
}

export interface PlanOptions {
  /** Deactivate the active records the rows do not hold. */
  replace: boolean;
  /** Fields a row that creates a record must give (each a staged column): else it is rejected `required_to_create`. */
  requiredToCreate: readonly CreationField[];
}

/** What an undo does, or would: records are those of the run's lists. */
export interface UndoPlan {
  records: number;
  /** Records with at least one field set back (deactivated ones made active again among them). */
  restored: number;
  /** Records the run created, deactivated (or removed, where the table has no deactivation). */
  deactivated: number;
  /** Records left entirely as they are (every field of theirs is a conflict, or nothing is left to do). */
  unchanged: number;
  /** Fields (or records the run created that are in use) left as they are: changed since. */
  conflicts: number;
  /** Active records (the base of the shrink guard's share). */
  activeRecords: number;
}

export interface RecordImport {
  /** The staged columns the file fills, by the structure's field names. */
  readonly fileColumns: Readonly<Record<string, StagedType>>;
  /** Staged columns the importer fills itself (the ids it resolves). */
  readonly resolvedColumns: Readonly<Record<string, StagedType>>;
  /** Whether a row whose key the store lacks creates a record (else it is rejected `unknown_key`). */
  readonly createsRecords: boolean;
  /** Fields an empty cell may clear (a mapping marks them `clearWhenEmpty`): each has a staged `clear_<field>` flag. */
  readonly clearable: readonly string[];
  /** Rejects what cannot be applied and counts what applying would do (deactivations only with `replace`). Writes nothing but the staging table. */
  plan(client: PoolClient, storeId: string, options: PlanOptions): Promise<ImportPlan>;
  /** Lists what applying would create, change (`changed` of them, as planned) and (with `replace`) deactivate; created records have no ids yet. */
  listPlanned(client: PoolClient, storeId: string, replace: boolean, changed: number): Promise<void>;
  /** Applies the staged rows (`changed` of them change records, as planned) and lists what it created, changed and deactivated. */
  apply(client: PoolClient, storeId: string, replace: boolean, changed: number): Promise<void>;
  /**
   * Plans taking back the run staged in `UNDO_STAGING` and lists what it would do, writing nothing but its
   * temporary tables: `lock` takes the records it may change first (an undo that will apply; a preview cannot).
   */
  planUndo(client: PoolClient, storeId: string, lock: boolean): Promise<UndoPlan>;
  /** Applies the planned undo. */
  applyUndo(client: PoolClient, storeId: string): Promise<void>;
}

const OUTCOME_TABLE = `create temp table ${IMPORT_OUTCOME} (list text not null, line int, key text not null, record_id uuid, changes jsonb) on commit preserve rows`;

/** The session's staging table (dropped at commit) and outcome list (kept past it, dropped by `dropImportTables`). */
export async function createImportTables(client: PoolClient, importer: RecordImport): Promise<void> {
  const columns = [
    ...Object.entries({ ...importer.fileColumns, ...importer.resolvedColumns }).map(([name, type]) => `${name} ${type}`),
    ...importer.clearable.map((field) => `clear_${field} boolean not null default false`),
  ];
  await client.query(`
    create temp table ${IMPORT_STAGING} (line int primary key, key text not null${columns.map((column) => `, ${column}`).join('')}) on commit drop;
    ${OUTCOME_TABLE}`);
}

/**
 * An undo's tables: what the run did (one row per record and field; `now` is filled by the undo) and
 * the outcome list.
 */
export async function createUndoTables(client: PoolClient): Promise<void> {
  await client.query(`
    create temp table ${UNDO_STAGING} (
      list text not null, key text not null, record_id uuid not null, field text, column_name text,
      run_after jsonb, restore jsonb, shown_run_after jsonb, shown_restore jsonb,
      found boolean not null default false, now jsonb, shown_now jsonb, conflict boolean not null default false) on commit drop;
    ${OUTCOME_TABLE}`);
}

export async function dropImportTables(client: PoolClient): Promise<void> {
  await client.query(`drop table if exists ${IMPORT_STAGING}, ${UNDO_STAGING}, ${IMPORT_OUTCOME}`);
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
