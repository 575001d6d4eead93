import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Scope } from '../common/scopes.js';
import type { Transport } from './entities/session.entity.js';
import { REFRESH_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

export interface NewSession {
  apiKeyId: string;
  scopes: Scope[];
  transport: Transport;
  refreshTokenHash: string;
}

export interface CreatedSession {
  session_id: string;
  store_id: string;
  scopes: Scope[];
  transport: Transport;
  /** The session's creation time in epoch seconds, to the microsecond. */
  created_epoch: number;
  refresh_expires_at: Date;
}

interface Pending {
  sessionId: string;
  input: NewSession;
  resolve: (created: CreatedSession | null) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 200;

/**
 * Writes new sessions with their first refresh token. Mints that arrive in the same turn of the
 * event loop share one INSERT statement and one commit, so under load a round trip to PostgreSQL
 * serves many sessions; a lone mint is written at once, alone. A mint whose key was revoked in the
 * meantime gets no row (null).
 */
@Injectable()
export class SessionWriter {
  private queue: Pending[] = [];

  constructor(private readonly em: EntityManager) {}

  create(input: NewSession): Promise<CreatedSession | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sessionId: randomUUID(), input, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) setImmediate(() => void this.flush());
    try {
      const created = await this.insert(batch);
      for (const pending of batch) pending.resolve(created.get(pending.sessionId) ?? null);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  private async insert(batch: Pending[]): Promise<Map<string, CreatedSession>> {
    const column = <T>(pick: (pending: Pending) => T) => batch.map(pick);
    const { rows } = await sql<CreatedSession>`
      with input as (
        select * from unnest(
          ${column((p) => p.sessionId)}::uuid[], ${column((p) => p.input.apiKeyId)}::uuid[],
          ${column((p) => p.input.scopes.join(' '))}::text[], ${column((p) => p.input.transport)}::text[],
          ${column((p) => p.input.refreshTokenHash)}::text[]
        ) as i(session_id, api_key_id, scopes, transport, token_hash)
      ), session as (
        insert into sessions (id, store_id, api_key_id, scopes, transport)
        select i.session_id, k.store_id, k.id, string_to_array(i.scopes, ' '), i.transport
        from input i join api_keys k on k.id = i.api_key_id and k.revoked_at is null
        returning id, store_id, scopes, transport, created_at
      ), token as (
        insert into refresh_tokens (session_id, token_hash, expires_at)
        select s.id, i.token_hash, now() + make_interval(secs => ${REFRESH_TOKEN_TTL_SECONDS})
        from session s join input i on i.session_id = s.id
        returning session_id, expires_at
      )
      select s.id as session_id, s.store_id, s.scopes, s.transport, extract(epoch from s.created_at)::float8 as created_epoch,
             t.expires_at as refresh_expires_at
      from session s join token t on t.session_id = s.id`.execute(this.em.getKysely());
    return new Map(rows.map((row) => [row.session_id, row]));
  }
}

/** Why a history session is revoked from the start: it was never live, and no key minted it. */
export const HISTORY_SESSION_REASON = 'history';

/** A session of the store's past (the demo's history), which searches and orders of that past name. Times are epoch seconds. */
export interface HistorySession {
  id: string;
  /** The shopper signed in on it, from `shopperAttachedAt`; null for a guest. */
  shopperId: string | null;
  shopperAttachedAt: number | null;
  startedAt: number;
  endedAt: number;
}

/**
 * History sessions in bulk: the `new_sessions` part of a WITH statement, over unnest()ed arrays. Such a
 * session has no API key, no scope and no refresh token, and is revoked (`history`) when it ended, so
 * nothing can ever act in it; it exists so that the rows of that past can name their session.
 */
export function historySessionInserts(storeId: string, sessions: HistorySession[]): RawBuilder<unknown> {
  return sql`
    new_sessions as (
      insert into sessions (id, store_id, api_key_id, scopes, transport, created_at, shopper_id, shopper_attached_at, revoked_at, revoked_reason)
      select s.id, ${storeId}, null, '{}', 'bearer', to_timestamp(s.started_at), s.shopper_id, to_timestamp(s.attached_at),
             to_timestamp(s.ended_at), ${HISTORY_SESSION_REASON}
      from unnest(${sessions.map((s) => s.id)}::uuid[], ${sessions.map((s) => s.shopperId)}::uuid[],
                  ${sessions.map((s) => s.shopperAttachedAt)}::float8[], ${sessions.map((s) => s.startedAt)}::float8[],
                  ${sessions.map((s) => s.endedAt)}::float8[])
        as s(id, shopper_id, attached_at, started_at, ended_at)
    )`;
}
