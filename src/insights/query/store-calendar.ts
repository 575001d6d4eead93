import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type Kysely } from 'kysely';
import { ApiError } from '../../common/errors/api-error.js';
import { COUNTED_ORDERS } from '../rollups/counted-orders.js';
import { localToday, type WeekStart } from './ranges.js';

/** What every Insights figure of a store is computed in: its time zone and currency, and where its history starts. */
export interface StoreCalendar {
  storeId: string;
  timezone: string;
  currency: string;
  weekStartsOn: WeekStart;
  /** Today in the store's time zone. */
  today: string;
  /** The local day of its first order that Insights counts, null before any. */
  firstOrderDay: string | null;
}

/** Weeks start on Sunday unless the store's Insights settings say otherwise (Saudi Arabia's working week). */
export const DEFAULT_WEEK_START: WeekStart = 'sunday';

@Injectable()
export class StoreCalendars {
  constructor(private readonly em: EntityManager) {}

  async of(storeId: string, now = new Date()): Promise<StoreCalendar> {
    const { rows } = await sql<{ timezone: string; currency: string; week_starts_on: WeekStart | null; first_order_day: string | null }>`
      select s.timezone, s.currency, i.week_starts_on,
             (select to_char(o.placed_at at time zone s.timezone, 'YYYY-MM-DD') from ${COUNTED_ORDERS} o
              where o.store_id = s.id order by o.placed_at limit 1) as first_order_day
      from stores s left join insights_settings i on i.store_id = s.id where s.id = ${storeId}`.execute(
      this.em.getKysely() as Kysely<unknown>,
    );
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    const { timezone, currency, week_starts_on, first_order_day } = rows[0];
    return {
      storeId,
      timezone,
      currency,
      weekStartsOn: week_starts_on ?? DEFAULT_WEEK_START,
      today: localToday(timezone, now),
      firstOrderDay: first_order_day,
    };
  }
}
