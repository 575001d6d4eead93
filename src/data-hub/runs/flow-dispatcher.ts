import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { Recurring } from '../../infra/jobs/recurring.decorator.js';
import { nextDueAt } from '../flows/flow-schedule.js';
import { queryableOf, RunRecords } from './run-records.js';
import { RunsService } from './runs.service.js';

/** Due flows taken per pass (the dispatcher runs every minute, and again at once if it took this many). */
const DISPATCH_BATCH = 200;

/**
 * Turns flows' due times into runs (contract sections 9 and 10). Every minute one instance takes the
 * due flows (locked, skipping those another instance holds) and, in one transaction per batch, files a
 * run for each due time (unique per flow and due time, so however many instances look, it is run once),
 * queues its job, and moves the flow to its next due time. A due time found more than the flow's
 * missing-file delay late (the service was down) is recorded as a `missing` run and alerted once; the
 * flow then keeps its schedule from now. Paused flows have no due time.
 */
@Injectable()
export class FlowDispatcher {
  constructor(
    private readonly em: EntityManager,
    private readonly runs: RunsService,
  ) {}

  @Recurring('data-hub.flows-dispatch', '* * * * *')
  async dispatchDue(): Promise<number> {
    let dispatched = 0;
    for (;;) {
      const { taken, missed } = await this.em.fork().transactional(async (em) => {
        const db = em.getKysely() as Kysely<unknown>;
        const { rows } = await sql<{
          id: string;
          store_id: string;
          next_run_at: Date;
          schedule_cron: string;
          schedule_timezone: string;
          missing_after_minutes: number;
          version: number;
        }>`
          select f.id, f.store_id, f.next_run_at, f.schedule_cron, f.schedule_timezone, f.missing_after_minutes, m.version
          from data_hub_flows f join data_hub_mappings m on m.id = f.mapping_id
          where not f.paused and f.next_run_at <= now()
          order by f.next_run_at limit ${DISPATCH_BATCH}
          for update of f skip locked`.execute(db);
        const late: string[] = [];
        for (const flow of rows) {
          const due = new Date(flow.next_run_at);
          const missed = Date.now() - due.getTime() > flow.missing_after_minutes * 60_000;
          const filed = await RunRecords.fileScheduled(queryableOf(db), {
            storeId: flow.store_id,
            flowId: flow.id,
            dueAt: due,
            mappingVersion: flow.version,
            missed: missed ? MISSED : null,
          });
          const next = nextDueAt(flow.schedule_cron, flow.schedule_timezone, new Date(Math.max(Date.now(), due.getTime())));
          await sql`update data_hub_flows set next_run_at = ${next} where id = ${flow.id}`.execute(db);
          if (!filed) continue; // filed already, or a run of the flow is still going
          if (missed) late.push(filed);
          else await this.runs.queue(filed, em);
        }
        return { taken: rows.length, missed: late };
      });
      for (const runId of missed) await this.runs.alert(runId);
      dispatched += taken;
      if (taken < DISPATCH_BATCH) return dispatched;
    }
  }
}

const MISSED = {
  code: 'due_time_missed',
  message_en: 'The service was not running at the due time, nor within the flow’s missing-file delay after it.',
  message_ar: 'لم تكن الخدمة تعمل في الموعد المستحق ولا خلال مهلة الملف المفقود بعده.',
};
