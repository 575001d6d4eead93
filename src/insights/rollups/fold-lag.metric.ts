import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { observeFoldLag } from '../../infra/telemetry/metrics.js';

/** How far the rollups trail the records, for the metrics: the age of the oldest change still pending, as /status tells it for one store. */
@Injectable()
export class FoldLagMetric implements OnModuleInit {
  constructor(private readonly em: EntityManager) {}

  onModuleInit(): void {
    observeFoldLag(() => this.lagSeconds());
  }

  private async lagSeconds(): Promise<number> {
    const { rows } = await sql<{ lag: number }>`
      select coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as lag from insights_pending`.execute(
      this.em.getKysely() as Kysely<unknown>,
    );
    return rows[0].lag;
  }
}
