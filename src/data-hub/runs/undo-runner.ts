import { Injectable } from '@nestjs/common';
import { createUndoTables } from '../../infra/database/record-import.js';
import type { JobAttempt } from '../../infra/jobs/tracked-job.js';
import type { RunCounts } from '../entities/run.entity.js';
import { RECORD_IMPORTS } from './record-imports.js';
import { RunRecords } from './run-records.js';
import { RunsDatabase } from './runs-database.js';
import { shrinkGuardRefusal, UNDO_WORDS, type ShrinkGuard } from './shrink-guard.js';

export interface UndoRequest {
  attempt: JobAttempt;
  storeId: string;
  /** The run taken back. */
  undoOf: string;
  structure: string;
  preview: boolean;
  shrinkGuard: ShrinkGuard;
  overridePercent?: number;
}

export interface UndoOutcome {
  status: 'succeeded' | 'refused' | 'failed';
  counts: RunCounts;
  refusal: Record<string, unknown> | null;
  error: { code: string; message_en: string; message_ar: string } | null;
}

const EXPIRED = {
  code: 'undo_expired',
  message_en: 'The run’s lists were removed after 90 days while this undo waited: nothing was changed.',
  message_ar: 'حُذفت قوائم التشغيل بعد 90 يومًا بينما كان هذا التراجع ينتظر: لم يتغير شيء.',
};

/**
 * An undo (contract section 11): a succeeded import run taken back in one transaction, all or nothing.
 * Fields it changed go back to their values before it, records it deactivated are active again, records
 * it created are deactivated; a field anyone changed since (a sale, a later run, the dashboard) is left as
 * it is and listed as a conflict. Deactivating what the run created passes the shrink guard as any run
 * does. `read` counts the records of the run's lists: `read = changed + deactivated + unchanged`.
 */
const NOTHING: RunCounts = { read: 0, changed: 0, created: 0, deactivated: 0, rejected: 0, unchanged: 0, sent: 0, conflicts: 0 };

@Injectable()
export class UndoRunner {
  constructor(private readonly database: RunsDatabase) {}

  async run(request: UndoRequest): Promise<UndoOutcome> {
    return this.database.transaction(async (client) => {
      await createUndoTables(client);
      if ((await RunRecords.stageUndo(client, request.undoOf)) === 'purged') {
        await client.query('rollback');
        return { status: 'failed', counts: { ...NOTHING }, refusal: null, error: EXPIRED };
      }
      // A preview cannot write: only the session's temporary tables take rows.
      if (request.preview) await client.query('set local transaction_read_only = on');
      const importer = RECORD_IMPORTS[request.structure];
      const plan = await importer.planUndo(client, request.storeId, !request.preview);
      const counts: RunCounts = {
        ...NOTHING,
        read: plan.records,
        changed: plan.restored,
        deactivated: plan.deactivated,
        unchanged: plan.unchanged,
        conflicts: plan.conflicts,
      };
      const refusal = shrinkGuardRefusal(request.shrinkGuard, request.overridePercent, plan.deactivated, plan.activeRecords, UNDO_WORDS);
      if (refusal || request.preview) {
        // Nothing written but the plan: what it would do is listed all the same, for the member to judge before an override.
        await client.query('commit');
        await RunRecords.keepImportOutcome(client, request.attempt);
        return { status: refusal ? 'refused' : 'succeeded', counts, refusal, error: null };
      }
      await importer.applyUndo(client, request.storeId);
      await RunRecords.commitSucceeded(client, request.attempt, { status: 'succeeded', counts });
      return { status: 'succeeded', counts, refusal: null, error: null };
    });
  }
}
