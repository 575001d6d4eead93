import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { StorefrontEventKind } from './entities/storefront-event.entity.js';

/** A funnel step a shopper took, as the storefront saw it happen. */
export interface EventToRecord {
  storeId: string;
  sessionId: string;
  kind: StorefrontEventKind;
  productId?: string | null;
  orderId?: string | null;
  /**
   * When it happened, in epoch seconds (to the microsecond when it is a time PostgreSQL wrote); the
   * moment it is recorded unless given. A batch is written a moment later, in one statement.
   */
  occurredAt?: number;
}

type QueuedEvent = EventToRecord & { occurredAt: number };

const MAX_BATCH = 1000;
/**
 * How long a batch gathers before it is written (or until it holds MAX_BATCH events). Each INSERT has a
 * cost of its own (a statement, a transaction, a pending rollup change) beyond its rows', and a funnel
 * that shows events a tenth of a second later loses nothing.
 */
const BATCH_WINDOW_MS = 100;
/**
 * How many (session, product) pairs an instance remembers to write a product's view once per session.
 * Past that the oldest are forgotten, and a session re-reading such a product records it again: the
 * funnel counts sessions, so a repeat only costs a row.
 */
const MAX_REMEMBERED_VIEWS = 100_000;

/**
 * Writes the storefront's funnel events (contract section 8) off the request path: events recorded
 * within BATCH_WINDOW_MS of each other share one INSERT, and the request never waits for it. While one
 * batch is being written the next one gathers, so under load the batches grow instead of the
 * statements. A failed write is logged, never reported to the shopper.
 */
@Injectable()
export class StorefrontEventRecorder implements OnApplicationShutdown {
  private readonly logger = new Logger(StorefrontEventRecorder.name);
  private queue: QueuedEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private readonly viewed = new Set<string>();

  constructor(private readonly em: EntityManager) {}

  record(event: EventToRecord): void {
    this.queue.push({ ...event, occurredAt: event.occurredAt ?? Date.now() / 1000 });
    this.schedule();
  }

  /**
   * A product's detail was read: recorded the first time this instance sees the session read it, so a
   * page reloaded or polled (with its ETag) writes nothing more.
   */
  productViewed(storeId: string, sessionId: string, productId: string): void {
    const pair = sessionId + productId;
    if (this.viewed.has(pair)) return;
    if (this.viewed.size >= MAX_REMEMBERED_VIEWS) this.viewed.delete(this.viewed.values().next().value!);
    this.viewed.add(pair);
    this.record({ storeId, sessionId, kind: 'product_viewed', productId });
  }

  /** Resolves once everything recorded so far is written (or has failed). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.writing) {
      if (this.writing) await this.writing;
      else this.flush();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.drain();
  }

  private schedule(): void {
    if (this.writing) return;
    if (this.queue.length >= MAX_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS).unref();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing) return;
    const batch = this.queue.splice(0, MAX_BATCH);
    if (batch.length === 0) return;
    this.writing = this.insert(batch)
      .catch((error: unknown) => this.logger.warn(`${batch.length} storefront events not recorded: ${(error as Error).message}`))
      .finally(() => {
        this.writing = null;
        if (this.queue.length > 0) this.schedule();
      });
  }

  private async insert(batch: QueuedEvent[]): Promise<void> {
    const events = batch.map((event) => ({
      storeId: event.storeId,
      sessionId: event.sessionId,
      kind: event.kind,
      productId: event.productId ?? null,
      orderId: event.orderId ?? null,
      occurredAt: event.occurredAt,
    }));
    // An asynchronous commit, for this statement's transaction only: the batch does not wait for the WAL
    // flush that shoppers' own commits queue behind. A crash of PostgreSQL can lose the last moments of
    // events (a whole batch with its pending rollup changes, never part of one); nothing else depends on them.
    await sql`with ${eventInserts(events)} select set_config('synchronous_commit', 'off', true)`.execute(this.em.getKysely());
  }
}

/** A storefront event to write. `occurredAt` is in epoch seconds. */
export interface NewStorefrontEvent {
  storeId: string;
  sessionId: string;
  kind: StorefrontEventKind;
  productId: string | null;
  orderId: string | null;
  occurredAt: number;
}

/**
 * The one way storefront events are written (the live recorder, the demo's history): the
 * `new_storefront_events` part of a WITH statement, over unnest()ed arrays.
 */
export function eventInserts(events: NewStorefrontEvent[]): RawBuilder<unknown> {
  return sql`
    new_storefront_events as (
      insert into storefront_events (store_id, session_id, kind, product_id, order_id, occurred_at)
      select e.store_id, e.session_id, e.kind, e.product_id, e.order_id, to_timestamp(e.occurred_at)
      from unnest(
        ${events.map((e) => e.storeId)}::uuid[], ${events.map((e) => e.sessionId)}::uuid[], ${events.map((e) => e.kind)}::text[],
        ${events.map((e) => e.productId)}::uuid[], ${events.map((e) => e.orderId)}::uuid[], ${events.map((e) => e.occurredAt)}::float8[]
      ) as e(store_id, session_id, kind, product_id, order_id, occurred_at)
    )`;
}
