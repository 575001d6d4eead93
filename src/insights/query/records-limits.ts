import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { AppConfig } from '../../infra/config/app-config.js';
import type { DateRange } from './ranges.js';

/**
 * What bounds an answer read from the records rather than the rollups (contract section 11): the
 * orders it would read, counted from the sales rollup before anything else is read, and the time it
 * may take. Past either it is refused with 422 query_too_heavy and what to ask instead. Exports read
 * without them: they run in the background and stream.
 */
@Injectable()
export class RecordsLimits {
  constructor(
    private readonly em: EntityManager,
    private readonly config: AppConfig,
  ) {}

  /** Runs `read` of a store's records over `range` within the limits, in a transaction of its own. */
  async within<T>(storeId: string, range: DateRange, read: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
    await this.refuseOverBudget(storeId, range);
    return this.transaction(read);
  }

  /** Runs `read` in a transaction of its own whose every statement may take the time limit at most. */
  async transaction<T>(read: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
    const seconds = this.config.INSIGHTS_RECORDS_TIMEOUT_SECONDS;
    try {
      return await this.em.fork().transactional(async (em) => {
        const db = em.getKysely() as Kysely<unknown>;
        // for this transaction only: nothing outlives it on a pooled connection
        await sql`select set_config('statement_timeout', ${`${seconds * 1000}`}, true)`.execute(db);
        return read(db);
      });
    } catch (error) {
      if ((error as { code?: string }).code !== '57014') throw error;
      throw new ApiError('query_too_heavy', {
        details: { timeoutSeconds: seconds },
        suggestion: {
          code: 'narrow',
          message_en: `It did not finish within ${seconds} s. Ask for a shorter range, fewer dimensions or a filter.`,
          message_ar: `لم يكتمل خلال ${seconds} ثانية. اطلب نطاقًا أقصر أو أبعادًا أقل أو أضف تصفية.`,
        },
      });
    }
  }

  /**
   * Refuses a range whose orders (placed or cancelled in it, as the sales rollup counts them) are more
   * than INSIGHTS_RECORDS_MAX_ORDERS, naming how many and the latest days that would fit.
   */
  async refuseOverBudget(storeId: string, range: DateRange): Promise<void> {
    const budget = this.config.INSIGHTS_RECORDS_MAX_ORDERS;
    const { rows } = await sql<{ orders: string; fitting_from: string | null }>`
      select coalesce(sum(d.orders), 0) as orders, min(d.day) filter (where d.since <= ${budget}) as fitting_from
      from (select t.day, t.orders + t.cancelled_orders as orders,
                   sum(t.orders + t.cancelled_orders) over (order by t.day desc) as since
            from insights_sales_totals_daily t
            where t.store_id = ${storeId}::uuid and t.day between ${range.from}::date and ${range.to}::date) d`.execute(
      this.em.getKysely() as Kysely<unknown>,
    );
    const orders = Number(rows[0].orders);
    if (orders <= budget) return;
    const from = rows[0].fitting_from ? String(rows[0].fitting_from).slice(0, 10) : null;
    const fits = from ? { from, to: range.to } : null;
    throw new ApiError('query_too_heavy', {
      details: { orders, maxOrders: budget },
      suggestion: {
        code: 'narrow',
        message_en: `No rollup holds this question, and answering it would read the records of ${orders} orders; an answer reads at most ${budget}.${
          fits ? ` From ${fits.from} to ${fits.to} fits.` : ''
        } Ask for a shorter range, or fewer dimensions.`,
        message_ar: `لا يحفظ أي ملخّص هذا السؤال، والإجابة عنه تقرأ سجلات ${orders} طلبًا؛ والإجابة تقرأ ${budget} كحد أقصى.${
          fits ? ` تتسع له الفترة من ${fits.from} إلى ${fits.to}.` : ''
        } اطلب نطاقًا أقصر أو أبعادًا أقل.`,
        ...(fits ? { range: fits } : {}),
      },
    });
  }
}
