import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { BoundedMap } from '../../common/cache/bounded-map.js';

export interface PopularQuery {
  query: string;
  normalized: string;
  count: number;
}

/** How long a store's popular searches are reused before they are counted again. */
export const POPULAR_CACHE_MS = 60_000;
const POPULAR_WINDOW_DAYS = 30;
/** Kept per store: the context shows the first ones, suggestions match the typed text against all. */
const POPULAR_KEPT = 100;
export const POPULAR_SHOWN = 10;
const RECENT_SHOWN = 10;
const CACHED_STORES = 10_000;

/** Popular searches of a store and the recent ones of a session, from the search log. */
@Injectable()
export class SearchContextService {
  private readonly popularByStore = new BoundedMap<string, { at: number; queries: Promise<PopularQuery[]> }>(CACHED_STORES);

  constructor(private readonly em: EntityManager) {}

  /**
   * The store's most searched queries of the last 30 days that found something, grouped by their
   * normalised form and shown as shoppers most often typed them. Counted at most once a minute per
   * store and instance; concurrent callers share one count.
   */
  popular(storeId: string): Promise<PopularQuery[]> {
    const cached = this.popularByStore.get(storeId);
    if (cached && Date.now() - cached.at < POPULAR_CACHE_MS) return cached.queries;
    const queries = this.countPopular(storeId);
    this.popularByStore.set(storeId, { at: Date.now(), queries });
    queries.catch(() => this.popularByStore.delete(storeId));
    return queries;
  }

  private async countPopular(storeId: string): Promise<PopularQuery[]> {
    const { rows } = await sql<PopularQuery>`
      select mode() within group (order by query) as query, normalized_query as normalized, count(*)::int as count
      from searches
      where store_id = ${storeId} and created_at > now() - make_interval(days => ${POPULAR_WINDOW_DAYS})
        and result_count > 0 and normalized_query <> ''
      group by normalized_query
      order by count(*) desc, normalized_query
      limit ${POPULAR_KEPT}`.execute(this.em.getKysely());
    return rows;
  }

  /** The session's last distinct searches, newest first. */
  async recent(storeId: string, sessionId: string): Promise<{ query: string; searchedAt: string }[]> {
    const { rows } = await sql<{ query: string; searchedAt: string }>`
      select query, iso_utc(created_at) as "searchedAt" from (
        select distinct on (normalized_query) query, created_at
        from (
          select query, normalized_query, created_at from searches
          where session_id = ${sessionId} and store_id = ${storeId}
          order by created_at desc limit 200
        ) latest
        order by normalized_query, created_at desc
      ) distinct_queries
      order by created_at desc
      limit ${RECENT_SHOWN}`.execute(this.em.getKysely());
    return rows;
  }
}
