import { sql, type RawBuilder } from 'kysely';
import { leftOutOrder } from '../counted-orders.js';
import { ROLLUPS } from '../rollup-tables.js';
import { addInto, measures, scoped, statement, type FoldScope } from './statements.js';

// What shoppers do in the storefront: their searches, and the funnel's steps and searches' follow-ups from their events.

const SEARCH_TABLES = [ROLLUPS.searchesDaily, ROLLUPS.searchesHourly, ROLLUPS.searchesMonthly];

export function searched(scope: FoldScope): RawBuilder<unknown>[] {
  return [
    statement(
      [
        [
          'search_facts',
          sql`select q.store_id, q.created_at as at, s.timezone as tz, q.normalized_query as query, ${measures(ROLLUPS.searchesDaily, {
            searches: sql`1`,
            zero_result_searches: sql`(q.result_count = 0)::int`,
          })} from searches q join stores s on s.id = q.store_id where ${scoped(scope, 'q', 'created_at')}`,
        ],
      ],
      addInto(SEARCH_TABLES, 'search_facts'),
    ),
  ];
}

/** A search is followed by an add-to-cart (an order) when its session adds to its cart (orders) within this many minutes after it. */
export const FOLLOW_UP_MINUTES = 30;

const STEP_BITS = sql`(case e.kind when 'session_started' then 1 when 'product_viewed' then 2 when 'cart_line_added' then 4
                                   when 'checkout_quoted' then 8 when 'order_placed' then 16 * e.counted_order::int else 0 end)`;

export function storefrontEvents(scope: FoldScope): RawBuilder<unknown>[] {
  // An order left out of Insights (a test order) is no session's order step, nor a search's follow-up; its session still counts.
  const events = sql`
    select e.*, not (e.kind = 'order_placed' and ${leftOutOrder(sql`e.order_id`)}) as counted_order
    from storefront_events e where ${scoped(scope, 'e', 'occurred_at', 'bigint')}`;
  // Each session counts once per step, in the hour it started (its session_started event, else its
  // session row's creation, else its first event). A session's start is counted from its session_started
  // event, whenever that is folded in; a session with none counts as started with its first event.
  // `insights_funnel_sessions` remembers what was counted of a session beyond its start, so that a
  // session seen only starting (most of them) costs no row.
  const funnel = sql`
    with incoming as (
      select e.store_id, e.session_id, bit_or(${STEP_BITS}) as steps, min(e.occurred_at) as first_at,
             min(e.occurred_at) filter (where e.kind = 'session_started') as started_at
      from (${events}) e group by e.store_id, e.session_id
    ), looked_up as (
      -- a session first seen without its start: its session_started event, if one was written (folded in or not)
      select i.*, known.session_id is not null as known, coalesce(known.steps, 0) as known_steps, known.started_hour as known_hour,
             s.timezone,
             case when known.session_id is null and i.started_at is null then (
               select min(x.occurred_at) from storefront_events x where x.session_id = i.session_id and x.kind = 'session_started') end
               as earlier_start
      from incoming i
      join stores s on s.id = i.store_id
      left join insights_funnel_sessions known on known.session_id = i.session_id
    ), located as (
      select store_id, session_id, known, known_steps,
             steps | (not known and started_at is null and earlier_start is null)::int as steps,
             coalesce(known_hour, date_trunc('hour', coalesce(
               started_at, earlier_start, (select created_at from sessions where id = session_id), first_at) at time zone timezone)) as hour
      from looked_up
    ), saved as (
      insert into insights_funnel_sessions (session_id, store_id, started_hour, steps)
      select session_id, store_id, hour, steps from located where known or steps & ~1 <> 0
      on conflict (session_id) do update set steps = insights_funnel_sessions.steps | excluded.steps
    ), reached as (
      select store_id, hour, steps & ~known_steps as new_steps from located
    )
    insert into insights_funnel_hourly (store_id, hour, sessions, product_viewed, added_to_cart, reached_checkout, ordered)
    select store_id, hour, count(*) filter (where new_steps & 1 > 0), count(*) filter (where new_steps & 2 > 0),
           count(*) filter (where new_steps & 4 > 0), count(*) filter (where new_steps & 8 > 0), count(*) filter (where new_steps & 16 > 0)
    from reached where new_steps <> 0 group by store_id, hour
    on conflict (store_id, hour) do update set
      sessions = insights_funnel_hourly.sessions + excluded.sessions,
      product_viewed = insights_funnel_hourly.product_viewed + excluded.product_viewed,
      added_to_cart = insights_funnel_hourly.added_to_cart + excluded.added_to_cart,
      reached_checkout = insights_funnel_hourly.reached_checkout + excluded.reached_checkout,
      ordered = insights_funnel_hourly.ordered + excluded.ordered`;
  // The session's searches in the 30 minutes before an add-to-cart (an order) are followed by it, each once.
  const credits = statement(
    [
      [
        'credited',
        sql`insert into insights_search_credits (search_id, kind, store_id)
            select distinct q.id, case e.kind when 'cart_line_added' then 'add' else 'order' end, q.store_id
            from (${events}) e
            join searches q on q.session_id = e.session_id and q.store_id = e.store_id
              and q.created_at < e.occurred_at and q.created_at >= e.occurred_at - make_interval(mins => ${FOLLOW_UP_MINUTES})
            where e.kind in ('cart_line_added', 'order_placed') and e.counted_order
            on conflict (search_id, kind) do nothing
            returning search_id, kind`,
      ],
      [
        'credit_facts',
        sql`select q.store_id, q.created_at as at, s.timezone as tz, q.normalized_query as query, ${measures(ROLLUPS.searchesDaily, {
          followed_by_add: sql`(c.kind = 'add')::int`,
          followed_by_order: sql`(c.kind = 'order')::int`,
        })} from credited c join searches q on q.id = c.search_id join stores s on s.id = q.store_id`,
      ],
    ],
    addInto(SEARCH_TABLES, 'credit_facts'),
  );
  return [funnel, credits];
}
