import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { ReportReads, type ReadSource } from '../../infra/database/report-reads.js';

export interface Freshness {
  /** Everything recorded before this instant is in the figures. */
  dataAsOf: string;
  /** How far behind the records the figures are: 0 when nothing is waiting to be folded in and they are read on the primary. */
  lagSeconds: number;
  /** Where the figures are read: the replica's replay lag is part of `lagSeconds`. */
  source: ReadSource;
  /** How far the replica's replay is behind the primary; null when the figures are read on the primary. */
  replicaLagSeconds: number | null;
}

export interface SourceFreshness {
  name: 'orders' | 'refunds' | 'searches' | 'sessions';
  /** Records in the figures. */
  rows: number;
  /** The newest record, whether or not it is in the figures yet. */
  lastRecordAt: string | null;
}

/** How current a store's figures are (contract section 8, `GET /status`), told honestly. */
@Injectable()
export class FreshnessService {
  constructor(
    private readonly em: EntityManager,
    private readonly reads: ReportReads,
  ) {}

  /**
   * The oldest change still waiting to be folded in bounds what the figures include, on the primary; read on
   * a replica, they are as old again as its replay lag (an upper bound: the fold may have been further along).
   */
  async of(storeId: string): Promise<Freshness> {
    const { source, lagSeconds: replicaLag } = this.reads.current();
    const { rows } = await sql<{ data_as_of: string; lag: number }>`
      select iso_utc(coalesce(min(created_at), now())) as data_as_of,
             greatest(0, extract(epoch from now() - coalesce(min(created_at), now())))::float8 as lag
      from insights_pending where store_id = ${storeId}`.execute(this.em.getKysely() as Kysely<unknown>);
    return {
      dataAsOf: new Date(Date.parse(rows[0].data_as_of) - replicaLag * 1000).toISOString(),
      lagSeconds: Math.round(rows[0].lag) + replicaLag,
      source,
      replicaLagSeconds: source === 'replica' ? replicaLag : null,
    };
  }

  /** What the figures hold, read where they are read. */
  async sources(storeId: string): Promise<SourceFreshness[]> {
    const { rows } = await sql<{ name: SourceFreshness['name']; rows: string; last_record_at: string | null }>`
      select 'orders' as name, (select coalesce(sum(orders), 0) from insights_sales_daily where store_id = ${storeId}) as rows,
             (select iso_utc(max(placed_at)) from orders where store_id = ${storeId}) as last_record_at
      union all
      select 'refunds', (select coalesce(sum(refunded_count), 0) from insights_payments_hourly where store_id = ${storeId}),
             (select iso_utc(max(created_at)) from refunds where store_id = ${storeId})
      union all
      select 'searches', (select coalesce(sum(searches), 0) from insights_searches_hourly where store_id = ${storeId}),
             (select iso_utc(max(created_at)) from searches where store_id = ${storeId})
      union all
      select 'sessions', (select coalesce(sum(sessions), 0) from insights_funnel_hourly where store_id = ${storeId}),
             (select iso_utc(max(occurred_at)) from storefront_events where store_id = ${storeId})`.execute(this.reads.db);
    return rows.map((row) => ({ name: row.name, rows: Number(row.rows), lastRecordAt: row.last_record_at }));
  }
}
