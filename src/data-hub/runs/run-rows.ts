import type { Queryable } from './queryable.js';
import type { RunList } from '../entities/run.entity.js';

export interface RunRowInput {
  line?: number | null;
  key?: string | null;
  recordId?: string | null;
  values?: Record<string, unknown> | null;
  errors?: Record<string, unknown>[] | null;
}

const BATCH = 1000;

/** A run's lists (rejected, created, deactivated), written a thousand rows at a time, numbered in order. */
export class RunRowsWriter {
  private readonly positions: Record<RunList, number> = { rejected: 0, created: 0, deactivated: 0 };
  private pending: (RunRowInput & { list: RunList; position: number })[] = [];

  constructor(
    private readonly db: Queryable,
    private readonly runId: string,
  ) {}

  async add(list: RunList, row: RunRowInput): Promise<void> {
    this.pending.push({ ...row, list, position: ++this.positions[list] });
    if (this.pending.length >= BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const rows = this.pending;
    this.pending = [];
    await this.db.query(
      `insert into data_hub_run_rows (run_id, list, position, line, key, record_id, "values", errors)
       select $1, r.list, r.position, r.line, r.key, r.record_id, r.values, r.errors
       from jsonb_to_recordset($2::jsonb) as r(list text, position int, line int, key text, record_id uuid, "values" jsonb, errors jsonb)`,
      [
        this.runId,
        JSON.stringify(
          rows.map((row) => ({
            list: row.list,
            position: row.position,
            line: row.line ?? null,
            key: row.key ?? null,
            record_id: row.recordId ?? null,
            values: row.values ?? null,
            errors: row.errors ?? null,
          })),
        ),
      ],
    );
  }
}
