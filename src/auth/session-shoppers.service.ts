import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { ApiError } from '../common/errors/api-error.js';
import type { SessionPrincipal } from './principal.js';

/** Who shops on a session: a session starts anonymous and a shopper is attached by the account endpoints. */
export interface SessionOwner {
  sessionId: string;
  storeId: string;
  /** Null while the session is anonymous. */
  shopperId: string | null;
}

/**
 * The link between a session and its shopper. It lives in the database, not in the token, so that
 * signing in or out takes effect at once and the session keeps its tokens.
 */
@Injectable()
export class SessionShoppers {
  constructor(private readonly em: EntityManager) {}

  /** The session's current owner; a session revoked since its token was issued is refused. */
  async ownerOf(principal: SessionPrincipal, em: EntityManager = this.em): Promise<SessionOwner> {
    const { rows } = await sql<{ shopper_id: string | null; revoked: boolean }>`
      select shopper_id, revoked_at is not null as revoked
      from sessions where id = ${principal.sessionId} and store_id = ${principal.storeId}`.execute(em.getKysely());
    const row = rows[0];
    if (!row || row.revoked) throw new ApiError('UNAUTHENTICATED');
    return { sessionId: principal.sessionId, storeId: principal.storeId, shopperId: row.shopper_id };
  }

  /** The signed-in shopper, or 403 SIGN_IN_REQUIRED for an anonymous session. */
  async requireShopper(principal: SessionPrincipal, em: EntityManager = this.em): Promise<SessionOwner & { shopperId: string }> {
    const owner = await this.ownerOf(principal, em);
    if (owner.shopperId === null) throw new ApiError('SIGN_IN_REQUIRED');
    return owner as SessionOwner & { shopperId: string };
  }

  /** Attaches within the caller's transaction, so the cart merge and the attachment commit together. */
  async attach(em: EntityManager, sessionId: string, shopperId: string): Promise<void> {
    await sql`update sessions set shopper_id = ${shopperId}, shopper_attached_at = now() where id = ${sessionId}`.execute(em.getKysely());
  }

  async detach(em: EntityManager, sessionId: string): Promise<void> {
    await sql`update sessions set shopper_id = null, shopper_attached_at = null where id = ${sessionId}`.execute(em.getKysely());
  }

  /** Signs the shopper out of every session but `keptSessionId` (after a password change). */
  async detachElsewhere(em: EntityManager, shopperId: string, keptSessionId: string): Promise<void> {
    await sql`update sessions set shopper_id = null, shopper_attached_at = null
              where shopper_id = ${shopperId} and id <> ${keptSessionId}`.execute(em.getKysely());
  }
}
