import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { createHash } from 'node:crypto';

/** Whose key it is: a store and, within it, who may reuse the key (a session at checkout, a staff member for an export…). */
export interface IdempotencyScope {
  storeId: string;
  scope: string;
}

export type ClaimOutcome =
  /** The key is this request's now; the caller writes `resultId` in the same transaction. */
  | { kind: 'claimed' }
  /** The same request was made with this key before: answer what it produced. */
  | { kind: 'replay'; resultId: string }
  /** The key was used for a different request. */
  | { kind: 'mismatch' };

/** What makes two requests "the same" for a key: a canonical rendering of their meaning, hashed. */
export function requestHashOf(meaning: unknown): string {
  return createHash('sha256').update(JSON.stringify(meaning)).digest('hex');
}

/**
 * Claims `key` for a request inside the caller's transaction, as its first write: a concurrent
 * request with the same key blocks on the primary key until this transaction ends, then sees the
 * stored claim (replay or mismatch). A transaction that rolls back releases the key.
 */
export async function claimIdempotencyKey(
  em: EntityManager,
  owner: IdempotencyScope,
  key: string,
  requestHash: string,
  resultId: string,
): Promise<ClaimOutcome> {
  const inserted = await sql`
    insert into idempotency_claims (store_id, scope, key, request_hash, result_id)
    values (${owner.storeId}, ${owner.scope}, ${key}, ${requestHash}, ${resultId})
    on conflict do nothing`.execute(em.getKysely());
  if (Number(inserted.numAffectedRows ?? 0) === 1) return { kind: 'claimed' };
  const earlier = await findIdempotencyClaim(em, owner, key, requestHash);
  if (!earlier) throw new Error('idempotency key conflicted but is not stored');
  return earlier;
}

/** An earlier use of `key` (outside any transaction, to answer a retry without starting one), or null. */
export async function findIdempotencyClaim(
  em: EntityManager,
  owner: IdempotencyScope,
  key: string,
  requestHash: string,
): Promise<Exclude<ClaimOutcome, { kind: 'claimed' }> | null> {
  const { rows } = await sql<{ request_hash: string; result_id: string }>`
    select request_hash, result_id from idempotency_claims
    where store_id = ${owner.storeId} and scope = ${owner.scope} and key = ${key}`.execute(em.getKysely());
  if (!rows[0]) return null;
  return rows[0].request_hash === requestHash ? { kind: 'replay', resultId: rows[0].result_id } : { kind: 'mismatch' };
}
