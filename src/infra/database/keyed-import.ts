import type { PoolClient } from 'pg';
import {
  IMPORT_OUTCOME,
  IMPORT_STAGING,
  stagedValues,
  UNDO_STAGING,
  type ImportPlan,
  type PlanOptions,
  type RecordImport,
  type StagedRejection,
  type StagedRow,
  type StagedType,
  type UndoPlan,
} from './record-import.js';

/** How a staged column sets a record's column. */
export interface SetColumn {
  column: string;
  /** The structure's field it is (default: the staged column's name). */
  field?: string;
  /** For a column holding an id: SQL showing a value of it as a file writes it (the slug it refers to). */
  shown?: (value: string) => string;
  /** What an empty cell of a field mapped `clearWhenEmpty` sets it to (SQL); absent: the field cannot be cleared. */
  clearedTo?: string;
}

/** How a table's records are matched, changed, created, deactivated and taken back by an import. */
export interface KeyedRecords {
  table: string;
  /** The record's column the staged key matches. */
  key: string;
  /** The structure's name for the key, as a rejected row names the field. */
  keyField: string;
  /** Staged column → the record's column it sets (or how). */
  sets: Readonly<Record<string, string | SetColumn>>;
  /** Set on every changed record besides (`updated_at = now()`). */
  touch?: string;
  /** A record the store lacks is created with these values (record column → SQL over staged `s`; `$1` is the store); else its row is rejected. */
  creates?: Readonly<Record<string, string>>;
  /**
   * Which records count as active, and what deactivates one (column → typed SQL value): what `replace`
   * does to a record the file does not hold, and an undo to a record the run created.
   */
  deactivation?: { active: string; set: Readonly<Record<string, string>> };
  /**
   * Where there is no deactivation: whether a record an import created is unused (SQL over `r`) by
   * anything but the records its undo removes too (`removed`: SQL of their ids), so that the undo removes
   * it. One in use is left, as a conflict.
   */
  unused?: (removed: string) => string;
  noun: { en: string; ar: string };
}

interface Setting {
  staged: string;
  column: string;
  field: string;
  shown?: (value: string) => string;
  clearedTo?: string;
}

/** A JSON array of the non-null JSON objects given (SQL). */
const jsonList = (items: string[]) => `to_jsonb(array_remove(array[${items.join(', ')}]::jsonb[], null))`;

/**
 * The one way an import plans, applies and undoes over a table of keyed records. Records are locked in
 * id order before they change (as checkout takes variants), and only those that change: an import, an
 * undo and a checkout cannot deadlock, and unchanged records are not rewritten. Every change is listed
 * with each field's value before and after, which is what an undo restores from.
 */
export class KeyedImport implements RecordImport {
  private readonly settings: Setting[];
  readonly clearable: readonly string[];

  constructor(
    private readonly records: KeyedRecords,
    readonly fileColumns: Readonly<Record<string, StagedType>>,
    readonly resolvedColumns: Readonly<Record<string, StagedType>> = {},
    private readonly steps: {
      /** Before planning: resolve references, rejecting rows that name nothing. */
      resolve?: (client: PoolClient, storeId: string) => Promise<StagedRejection[]>;
      /** After applying (or undoing), in the same transaction (e.g. derived columns). */
      applied?: (client: PoolClient, storeId: string) => Promise<void>;
    } = {},
  ) {
    this.settings = Object.entries(records.sets).map(([staged, to]) =>
      typeof to === 'string' ? { staged, column: to, field: staged } : { staged, ...to, field: to.field ?? staged },
    );
    this.clearable = this.settings.filter((setting) => setting.clearedTo !== undefined).map((setting) => setting.field);
  }

  get createsRecords(): boolean {
    return this.records.creates !== undefined;
  }

  private get match(): string {
    return `r.store_id = $1 and r.${this.records.key} = s.key`;
  }

  /** The value a changed record's column takes. */
  private newValue(setting: Setting): string {
    const kept = `coalesce(s.${setting.staged}, r.${setting.column})`;
    return setting.clearedTo === undefined ? kept : `case when s.clear_${setting.field} then ${setting.clearedTo} else ${kept} end`;
  }

  private differsIn(setting: Setting): string {
    const given = `(s.${setting.staged} is not null and s.${setting.staged} is distinct from r.${setting.column})`;
    return setting.clearedTo === undefined
      ? given
      : `(${given} or (s.clear_${setting.field} and r.${setting.column} is distinct from ${setting.clearedTo}))`;
  }

  private get differs(): string {
    return this.settings.map((setting) => this.differsIn(setting)).join(' or ');
  }

  /** A field's change as a list keeps it (JSON, SQL): the column's values, and as a file writes them where it holds an id. */
  private change(field: string, column: string, before: string, after: string): string {
    const shown = this.settings.find((setting) => setting.column === column)?.shown;
    const values = `'field', '${field}', 'column', '${column}', 'before', to_jsonb(${before}), 'after', to_jsonb(${after})`;
    return shown
      ? `jsonb_build_object(${values}, 'shownBefore', to_jsonb(${shown(before)}), 'shownAfter', to_jsonb(${shown(after)}))`
      : `jsonb_build_object(${values})`;
  }

  /** Each field a staged row changes of its record `r`, before and after (a JSON list). */
  private get changes(): string {
    return jsonList(
      this.settings.map(
        (setting) =>
          `case when ${this.differsIn(setting)} then ${this.change(setting.field, setting.column, `r.${setting.column}`, this.newValue(setting))} end`,
      ),
    );
  }

  private fieldOf(column: string): string {
    return this.settings.find((setting) => setting.column === column)?.field ?? column;
  }

  /** Deactivation's changes of a record, from `old` (its columns before) to `now` (after). */
  private deactivationChanges(old: string, now: string | null): string {
    return jsonList(
      Object.entries(this.records.deactivation!.set).map(([column, value]) =>
        this.change(this.fieldOf(column), column, `${old}.${column}`, now === null ? value : `${now}.${column}`),
      ),
    );
  }

  private deactivationAssignments(): string {
    const assignments = Object.entries(this.records.deactivation!.set).map(([column, value]) => `${column} = ${value}`);
    if (this.records.touch) assignments.push(this.records.touch);
    return assignments.join(', ');
  }

  private notInFile(): string {
    return `r.store_id = $1 and ${this.records.deactivation!.active}
      and not exists (select 1 from ${IMPORT_STAGING} s where s.key = r.${this.records.key})`;
  }

  async plan(client: PoolClient, storeId: string, { replace, requiredToCreate }: PlanOptions): Promise<ImportPlan> {
    const rejected: StagedRejection[] = [];
    const { table, keyField, noun } = this.records;
    if (this.records.creates && requiredToCreate.length > 0) {
      // Before references resolve: a row rejected here is not a parent another row can name.
      const { rows } = await client.query<StagedRow>(
        `delete from ${IMPORT_STAGING} s where (${requiredToCreate.map(({ field }) => `s.${field} is null`).join(' or ')})
           and not exists (select 1 from ${table} r where ${this.match}) returning s.*`,
        [storeId],
      );
      for (const row of rows) {
        const missing = requiredToCreate.filter(({ field }) => row[field] === null);
        rejected.push({
          row,
          errors: [
            {
              field: missing[0].field,
              code: 'required_to_create',
              fields: missing.map(({ field }) => field),
              message_en: `The store has no ${noun.en} ${row.key}: creating it needs ${missing.map((field) => field.label_en).join(', ')}, which this row leaves empty.`,
              message_ar: `لا يوجد في المتجر ${noun.ar} ${row.key}: إنشاؤه يحتاج إلى ${missing.map((field) => field.label_ar).join('، ')}، وهذا الصف لا يعطيها.`,
            },
          ],
        });
      }
    }
    rejected.push(...((await this.steps.resolve?.(client, storeId)) ?? []));
    if (!this.records.creates) {
      const { rows } = await client.query<StagedRow>(
        `delete from ${IMPORT_STAGING} s where not exists (select 1 from ${table} r where ${this.match}) returning s.*`,
        [storeId],
      );
      for (const row of rows) {
        rejected.push({
          row,
          errors: [
            {
              field: keyField,
              code: 'unknown_key',
              message_en: `The store has no ${noun.en} ${row.key}.`,
              message_ar: `لا يوجد في المتجر ${noun.ar} ${row.key}.`,
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
       from ${IMPORT_STAGING} s left join ${table} r on ${this.match}`,
      [storeId],
    );
    let deactivation = { wouldDeactivate: 0, activeRecords: 0 };
    if (replace && this.records.deactivation) {
      // A join, not `not exists` inside the filter: that one is a subplan run once per record.
      const { rows: active } = await client.query<{ would: number; active: number }>(
        `select count(*) filter (where s.key is null)::int as would, count(*)::int as active
         from ${table} r left join ${IMPORT_STAGING} s on s.key = r.${this.records.key}
         where r.store_id = $1 and ${this.records.deactivation.active}`,
        [storeId],
      );
      deactivation = { wouldDeactivate: active[0].would, activeRecords: active[0].active };
    }
    return {
      rejected: rejected
        .map(({ row, errors }) => ({ line: row.line, key: row.key, values: stagedValues(row, keyField, this.fileColumns), errors }))
        .sort((a, b) => a.line - b.line),
      ...rows[0],
      ...deactivation,
    };
  }

  /**
   * Lists each record the staged rows change, with its fields before and after. `lock`: each is locked
   * in id order as it is read, and read again as it is once locked (a row another transaction changed
   * meanwhile is compared and listed as it now is).
   */
  private async listChanges(client: PoolClient, storeId: string, lock: boolean): Promise<void> {
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, line, key, record_id, changes)
       select 'changed', c.line, c.key, c.id, c.changes from (
         select s.line, s.key, r.id, ${this.changes} as changes
         from ${IMPORT_STAGING} s join ${this.records.table} r on ${this.match} where ${this.differs}
         ${lock ? 'order by r.id for no key update of r' : ''}) c`,
      [storeId],
    );
  }

  async listPlanned(client: PoolClient, storeId: string, replace: boolean, changed: number): Promise<void> {
    const { table, deactivation } = this.records;
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, line, key)
       select 'created', s.line, s.key from ${IMPORT_STAGING} s where not exists (select 1 from ${table} r where ${this.match})`,
      [storeId],
    );
    if (changed > 0) await this.listChanges(client, storeId, false);
    if (replace && deactivation) {
      await client.query(
        `insert into ${IMPORT_OUTCOME} (list, key, record_id, changes)
         select 'deactivated', r.${this.records.key}, r.id, ${this.deactivationChanges('r', null)} from ${table} r where ${this.notInFile()}`,
        [storeId],
      );
    }
  }

  async apply(client: PoolClient, storeId: string, replace: boolean, changed: number): Promise<void> {
    const { table, key, creates, deactivation, touch } = this.records;
    const deactivating = replace && deactivation !== undefined;
    if (deactivating) {
      // One set of ids (a semi-join over a union: `exists … or …` would run a subplan per record), locked in order.
      await client.query(
        `select r.id from ${table} r
         where r.id in (
           select r.id from ${table} r join ${IMPORT_STAGING} s on ${this.match} where ${this.differs}
           union all select r.id from ${table} r where ${this.notInFile()})
         order by r.id for no key update`,
        [storeId],
      );
      if (changed > 0) await this.listChanges(client, storeId, false);
    } else if (changed > 0) {
      // Before anything is created: the records the rows change, locked in order, as they are once locked.
      await this.listChanges(client, storeId, true);
    }
    if (creates) {
      const columns = Object.keys(creates);
      // A record created keeps what its deactivation would set, as it was created: its undo deactivates it only if nobody changed that since.
      const createdAs = deactivation
        ? jsonList(Object.keys(deactivation.set).map((column) => this.change(this.fieldOf(column), column, 'null::text', `c.${column}`)))
        : 'null::jsonb';
      const returned = deactivation ? Object.keys(deactivation.set).map((column) => `, ${column}`) : [];
      await client.query(
        `with created as (
           insert into ${table} (store_id, ${key}, ${columns.join(', ')})
           select $1, s.key, ${Object.values(creates).join(', ')} from ${IMPORT_STAGING} s
           where not exists (select 1 from ${table} r where ${this.match}) order by s.line
           returning id, ${key} as key${returned.join('')})
         insert into ${IMPORT_OUTCOME} (list, line, key, record_id, changes)
         select 'created', s.line, c.key, c.id, ${createdAs} from created c join ${IMPORT_STAGING} s on s.key = c.key`,
        [storeId],
      );
    }
    const assignments = this.settings.map((setting) => `${setting.column} = ${this.newValue(setting)}`);
    if (touch) assignments.push(touch);
    if (changed > 0) {
      await client.query(
        `update ${table} r set ${assignments.join(', ')}
         from ${IMPORT_STAGING} s join ${IMPORT_OUTCOME} o on o.list = 'changed' and o.line = s.line
         where r.id = o.record_id`,
      );
    }
    if (deactivating) {
      // `old` is the table read again: the records as they were before this statement.
      await client.query(
        `with deactivated as (
           update ${table} r set ${this.deactivationAssignments()} from ${table} old where old.id = r.id and ${this.notInFile()}
           returning r.${key} as key, r.id, ${this.deactivationChanges('old', 'r')} as changes)
         insert into ${IMPORT_OUTCOME} (list, key, record_id, changes) select 'deactivated', key, id, changes from deactivated`,
        [storeId],
      );
    }
    await this.steps.applied?.(client, storeId);
  }

  /** The columns an undo reads and restores. */
  private get undoColumns(): string[] {
    return [...new Set([...this.settings.map((setting) => setting.column), ...Object.keys(this.records.deactivation?.set ?? {})])];
  }

  /** Records the run created that the undo deactivates (or removes): those none of whose fields is a conflict. */
  private get taken(): string {
    return `(select record_id from ${UNDO_STAGING} where list = 'created' group by record_id having bool_and(found and not conflict))`;
  }

  /** The fields the undo sets back (a FROM clause). */
  private get restored(): string {
    return `from ${UNDO_STAGING} where list <> 'created' and found and not conflict`;
  }

  async planUndo(client: PoolClient, storeId: string, lock: boolean): Promise<UndoPlan> {
    const { table, key, deactivation, unused } = this.records;
    const columns = this.undoColumns;
    const taken = this.taken;
    const restored = this.restored;
    const byColumn = (value: (column: string) => string | undefined) => {
      const cases = columns.flatMap((column) => {
        const sql = value(column);
        return sql === undefined ? [] : [`when '${column}' then ${sql}`];
      });
      return cases.length === 0 ? 'null::jsonb' : `case u.column_name ${cases.join(' ')} end`;
    };
    await client.query(`analyze ${UNDO_STAGING}`);
    // A preview locks nothing (a read-only transaction cannot); an undo locks what it may change before it reads it.
    if (lock) {
      await client.query(
        `select r.id from ${table} r where r.store_id = $1 and r.id in (select record_id from ${UNDO_STAGING}) order by r.id for no key update`,
        [storeId],
      );
    }
    // Each field as it is now: one that is no longer as the run left it (or whose record is gone) is a conflict.
    await client.query(
      `update ${UNDO_STAGING} u set found = true,
         now = ${byColumn((column) => `coalesce(to_jsonb(r.${column}), 'null')`)},
         shown_now = ${byColumn((column) => {
           const shown = this.settings.find((setting) => setting.column === column)?.shown;
           return shown ? `coalesce(to_jsonb(${shown(`r.${column}`)}), 'null')` : undefined;
         })}
       from ${table} r where r.id = u.record_id and r.store_id = $1`,
      [storeId],
    );
    await client.query(
      `update ${UNDO_STAGING} set conflict = true where column_name is not null and (not found or now is distinct from run_after)`,
    );
    if (unused) {
      // A record in use only by others this undo removes goes too (a category tree the run created): marked until none is left to mark.
      const removed = `(select record_id from ${UNDO_STAGING} where list = 'created' and found and not conflict)`;
      for (;;) {
        const { rowCount } = await client.query(
          `update ${UNDO_STAGING} u set conflict = true from ${table} r
           where u.list = 'created' and u.column_name is null and not u.conflict and r.id = u.record_id and not (${unused(removed)})`,
        );
        if (!rowCount) break;
      }
    }
    const active = deactivation ? deactivation.active : 'true';
    const { rows } = await client.query<Omit<UndoPlan, 'unchanged'>>(
      `select (select count(distinct record_id) from ${UNDO_STAGING})::int as records,
              (select count(distinct record_id) ${restored})::int as restored,
              (select count(*) from ${table} r where r.id in ${taken} and ${active})::int as deactivated,
              (select count(*) from ${UNDO_STAGING} where conflict)::int as conflicts,
              (select count(*) from ${table} r where r.store_id = $1 and ${active})::int as "activeRecords"`,
      [storeId],
    );
    const plan = { ...rows[0], unchanged: rows[0].records - rows[0].restored - rows[0].deactivated };

    const shownColumns = this.settings.filter((setting) => setting.shown).map((setting) => `'${setting.column}'`);
    const shownPair = (before: string, after: string) =>
      shownColumns.length === 0
        ? `'{}'::jsonb`
        : `case when column_name in (${shownColumns.join(', ')}) then jsonb_build_object('shownBefore', ${before}, 'shownAfter', ${after}) else '{}'::jsonb end`;
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, key, record_id, changes)
       select 'changed', key, record_id,
         jsonb_agg(jsonb_build_object('field', field, 'column', column_name, 'before', now, 'after', restore) || ${shownPair('shown_now', 'shown_restore')}
           order by column_name)
       ${restored} group by key, record_id`,
    );
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, key, record_id, changes)
       select 'conflicts', key, record_id, jsonb_build_object('field', field,
         'runAfter', coalesce(shown_run_after, run_after), 'now', coalesce(shown_now, now),
         'reason', case when not found then 'gone' when column_name is null then 'in_use' else 'changed' end)
       from ${UNDO_STAGING} where conflict`,
    );
    const deactivatedChanges = deactivation ? this.deactivationChanges('r', null) : 'null::jsonb';
    await client.query(
      `insert into ${IMPORT_OUTCOME} (list, key, record_id, changes)
       select 'deactivated', r.${key}, r.id, ${deactivatedChanges} from ${table} r where r.id in ${taken} and ${active}`,
    );
    return plan;
  }

  async applyUndo(client: PoolClient, storeId: string): Promise<void> {
    const { table, deactivation, unused, touch } = this.records;
    const taken = this.taken;
    const restores = this.undoColumns.map(
      (column) =>
        `${column} = case when u.restore ? '${column}' then (jsonb_populate_record(null::${table}, u.restore)).${column} else r.${column} end`,
    );
    if (touch) restores.push(touch);
    await client.query(
      `update ${table} r set ${restores.join(', ')}
       from (select record_id, jsonb_object_agg(column_name, restore) as restore ${this.restored} group by record_id) u
       where r.id = u.record_id`,
    );
    if (deactivation) {
      await client.query(`update ${table} r set ${this.deactivationAssignments()} where r.id in ${taken} and ${deactivation.active}`);
    } else if (unused) {
      await client.query(`delete from ${table} r where r.id in ${taken}`);
    }
    await this.steps.applied?.(client, storeId);
  }
}
