import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { Locale } from '../../common/locale.js';

export interface SearchToRecord {
  storeId: string;
  sessionId: string;
  query: string;
  locale: Locale;
  resultCount: number;
  /** When the search ran: a batch is written a moment later, in one statement. */
  searchedAt: Date;
}

const MAX_BATCH = 500;
const ARABIC_LETTER = /[\u0621-\u064A\u0671-\u06D3]/;

export function queryLocale(query: string): Locale {
  return ARABIC_LETTER.test(query) ? 'ar' : 'en';
}

/**
 * Writes the search log off the request path: searches that arrive in the same turn of the event
 * loop share one INSERT, and the answer never waits for it. A failed write is logged, never
 * reported to the shopper. The shopper is read from the session row as the insert runs (the same
 * link `SessionShoppers.ownerOf` reads), so recording costs no extra round trip per search.
 */
@Injectable()
export class SearchRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger(SearchRecorder.name);
  private queue: SearchToRecord[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly em: EntityManager) {}

  record(search: SearchToRecord): void {
    this.queue.push(search);
    if (this.queue.length === 1) setImmediate(() => this.flush());
  }

  /** Resolves once everything recorded so far is written (or has failed). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight.size > 0) {
      if (this.queue.length > 0) this.flush();
      await Promise.all([...this.inFlight]);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private flush(): void {
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    if (this.queue.length > 0) setImmediate(() => this.flush());
    const write = this.insert(batch)
      .catch((error: unknown) => this.logger.warn(`${batch.length} searches not recorded: ${(error as Error).message}`))
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  private async insert(batch: SearchToRecord[]): Promise<void> {
    const searches = batch.map((search) => ({ ...search, shopperId: null, searchedAt: search.searchedAt.getTime() / 1000 }));
    await sql`with ${searchInserts(searches)} select 1`.execute(this.em.getKysely());
  }
}

/** A search to record. `searchedAt` is in epoch seconds. */
export interface NewSearch {
  storeId: string;
  sessionId: string | null;
  /** Null takes the shopper signed in on the session as the row is written. */
  shopperId: string | null;
  query: string;
  locale: Locale;
  resultCount: number;
  searchedAt: number;
}

/** The one way searches are written (the live recorder, the demo's history): the `new_searches` part of a WITH statement. */
export function searchInserts(searches: NewSearch[]): RawBuilder<unknown> {
  return sql`
    new_searches as (
      insert into searches (store_id, session_id, shopper_id, query, normalized_query, locale, result_count, created_at)
      select i.store_id, i.session_id, coalesce(i.shopper_id, s.shopper_id), i.query, left(normalize_search_text(i.query), 200), i.locale,
             i.result_count, to_timestamp(i.searched_at)
      from unnest(
        ${searches.map((q) => q.storeId)}::uuid[], ${searches.map((q) => q.sessionId)}::uuid[], ${searches.map((q) => q.shopperId)}::uuid[],
        ${searches.map((q) => q.query)}::text[], ${searches.map((q) => q.locale)}::text[], ${searches.map((q) => q.resultCount)}::int[],
        ${searches.map((q) => q.searchedAt)}::float8[]
      ) as i(store_id, session_id, shopper_id, query, locale, result_count, searched_at)
      left join sessions s on s.id = i.session_id and s.store_id = i.store_id
    )`;
}
