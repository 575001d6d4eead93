import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { BoundedMap } from '../../common/cache/bounded-map.js';
import { entitlementsOf, permissionsOf, SUPPORT_PERMISSIONS, type StaffRole, type StorePlan } from '../../common/permissions.js';
import { ChangeFeed } from '../../infra/database/change-feed.js';
import { STORE_CHANNEL } from '../../stores/store.service.js';
import type { AdminPrincipal } from '../principal.js';
import type { AdminClaims } from './admin-token.service.js';

/** Who a dashboard session stands for, as read from the database; the request adds its language. */
export type DashboardIdentity = Omit<AdminPrincipal, 'locale'>;

/**
 * What changed, published on DASHBOARD_CHANNEL by whoever changed it: one session (sign-out, reuse
 * detection, a support session closed), or everything of one staff member (role, permissions, removal).
 * A store's plan is announced by the stores area on its own channel.
 */
export type DashboardChange = `session:${string}` | `staff:${string}`;

export const DASHBOARD_CHANNEL = 'dashboard_principal_changed';
/** Safety net only: every change reaches every instance at once through the change feed. */
const CACHE_TTL_MS = 15_000;
const CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  /** Null: the session is over (signed out, revoked, closed, expired, its member removed). */
  identity: DashboardIdentity | null;
  staffId?: string;
  storeId?: string;
  cachedUntil: number;
}

interface StaffRow {
  store_id: string;
  revoked: boolean;
  staff_id: string;
  email: string;
  name: string;
  role: StaffRole;
  permissions: string[];
  removed: boolean;
  store_name: string;
  plan: StorePlan;
  timezone: string;
  currency: string;
}

interface SupportRow {
  store_id: string;
  agent_email: string;
  reason: string;
  expires_at: Date;
  over: boolean;
  store_name: string;
  plan: StorePlan;
  timezone: string;
  currency: string;
}

/**
 * Resolves a dashboard token's session to its principal on every request: role, permissions, removal,
 * revocation, support-session closure and the store's plan are read at request time, not from the
 * token. Kept per instance by session id; every change is published on a PostgreSQL channel that
 * every instance (the command line included) listens to, so it takes effect on the very next request
 * everywhere, with a short expiry as a safety net and a full flush after a lost connection.
 */
@Injectable()
export class DashboardPrincipals {
  private readonly cache = new BoundedMap<string, CacheEntry>(CACHE_MAX_ENTRIES);
  /**
   * Bumped by every invalidation. A lookup that was in flight when an invalidation arrived must not
   * cache what it read: the row may predate the change, and caching it would undo the invalidation.
   */
  private generation = 0;

  constructor(
    private readonly em: EntityManager,
    private readonly changes: ChangeFeed,
  ) {
    this.changes.subscribe(DASHBOARD_CHANNEL, (change) => this.invalidate(change));
    this.changes.subscribe(STORE_CHANNEL, (storeId) => this.invalidate(`store:${storeId}`));
    this.changes.onReconnect(() => this.invalidate());
  }

  /** The principal a verified token stands for, or null when its session no longer does. */
  async resolve(claims: AdminClaims): Promise<DashboardIdentity | null> {
    const key = `${claims.kind}:${claims.sessionId}`;
    const cached = this.cache.get(key);
    if (cached && cached.cachedUntil > Date.now()) return stillOpen(cached.identity);

    const generation = this.generation;
    const entry = claims.kind === 'staff' ? await this.readStaff(claims.sessionId) : await this.readSupport(claims.sessionId);
    if (generation === this.generation) this.cache.set(key, entry);
    return stillOpen(entry.identity);
  }

  /**
   * A staff member as they stand now, for work done in the background on their behalf (an export, a
   * scheduled delivery): their role's permissions and their store's plan today, or null once removed.
   * Not cached: each piece of work reads it once.
   */
  async ofStaffMember(staffId: string): Promise<DashboardIdentity | null> {
    const { rows } = await sql<StaffRow>`
      select m.store_id, false as revoked, m.id as staff_id, m.email, m.name, m.role, m.permissions,
             m.removed_at is not null as removed, s.name as store_name, s.plan, s.timezone, s.currency
      from staff_members m join stores s on s.id = m.store_id
      where m.id = ${staffId}`.execute(this.em.getKysely());
    return rows[0] ? staffIdentity(rows[0], `background:${staffId}`) : null;
  }

  /** Drops what the change touched here at once, then tells every other instance. */
  async publish(change: DashboardChange): Promise<void> {
    this.invalidate(change);
    await this.changes.publish(DASHBOARD_CHANNEL, change);
  }

  /** Forgets what a change touched (everything when none is named) and voids lookups still in flight. */
  private invalidate(change?: string): void {
    this.generation += 1;
    if (change === undefined) return this.cache.clear();
    const separator = change.indexOf(':');
    const [what, id] = [change.slice(0, separator), change.slice(separator + 1)];
    if (what === 'session') {
      this.cache.delete(`staff:${id}`);
      this.cache.delete(`support:${id}`);
      return;
    }
    for (const [key, entry] of this.cache) {
      if ((what === 'staff' && entry.staffId === id) || (what === 'store' && entry.storeId === id)) this.cache.delete(key);
    }
  }

  private async readStaff(sessionId: string): Promise<CacheEntry> {
    const { rows } = await sql<StaffRow>`
      select ss.store_id, ss.revoked_at is not null as revoked,
             m.id as staff_id, m.email, m.name, m.role, m.permissions, m.removed_at is not null as removed,
             s.name as store_name, s.plan, s.timezone, s.currency
      from staff_sessions ss
      join staff_members m on m.id = ss.staff_member_id and m.store_id = ss.store_id
      join stores s on s.id = ss.store_id
      where ss.id = ${sessionId}`.execute(this.em.getKysely());
    const row = rows[0];
    const cachedUntil = Date.now() + CACHE_TTL_MS;
    if (!row) return { identity: null, cachedUntil };
    return { identity: staffIdentity(row, sessionId), staffId: row.staff_id, storeId: row.store_id, cachedUntil };
  }

  private async readSupport(sessionId: string): Promise<CacheEntry> {
    const { rows } = await sql<SupportRow>`
      select sp.store_id, sp.agent_email, sp.reason, sp.expires_at,
             sp.closed_at is not null or sp.expires_at <= now() as over,
             s.name as store_name, s.plan, s.timezone, s.currency
      from support_sessions sp join stores s on s.id = sp.store_id
      where sp.id = ${sessionId}`.execute(this.em.getKysely());
    const row = rows[0];
    const cachedUntil = Date.now() + CACHE_TTL_MS;
    if (!row) return { identity: null, cachedUntil };
    const identity: DashboardIdentity | null = row.over
      ? null
      : {
          kind: 'support',
          storeId: row.store_id,
          sessionId,
          support: { agent: row.agent_email, reason: row.reason, expiresAt: new Date(row.expires_at).toISOString() },
          store: storeOf(row),
          permissions: SUPPORT_PERMISSIONS,
          entitlements: entitlementsOf(row.plan),
          readOnly: true,
        };
    return { identity, storeId: row.store_id, cachedUntil };
  }
}

/** The principal a staff member's row stands for, or null for a revoked session or a removed member. */
function staffIdentity(row: StaffRow, sessionId: string): DashboardIdentity | null {
  if (row.revoked || row.removed) return null;
  return {
    kind: 'staff',
    storeId: row.store_id,
    sessionId,
    staff: { id: row.staff_id, email: row.email, name: row.name, role: row.role },
    store: storeOf(row),
    permissions: permissionsOf(row.role, row.permissions),
    entitlements: entitlementsOf(row.plan),
    readOnly: false,
  };
}

function storeOf(row: { store_id: string; store_name: string; plan: StorePlan; timezone: string; currency: string }) {
  return { id: row.store_id, name: row.store_name, plan: row.plan, timezone: row.timezone, currency: row.currency };
}

/** A support session ends at its expiry even while its principal sits in the cache. */
function stillOpen(identity: DashboardIdentity | null): DashboardIdentity | null {
  if (identity?.support && Date.parse(identity.support.expiresAt) <= Date.now()) return null;
  return identity;
}
