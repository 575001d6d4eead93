import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import { isPermission, permissionsOf, STAFF_ROLES, type Permission, type StaffRole } from '../../common/permissions.js';
import { PasswordHasher } from '../../infra/crypto/password-hasher.js';
import { randomAlphanumeric } from '../../infra/crypto/secrets.js';
import { DashboardPrincipals } from '../dashboard/dashboard-principals.js';

/** The identity of an address within a store: trimmed and lower-cased (staff_members.email_normalized). */
export function normalizeStaffEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** 24 characters of [A-Za-z0-9] from the CSPRNG: about 143 bits, and safe to paste into a shell or JSON. */
const GENERATED_PASSWORD_LENGTH = 24;

export interface StaffView {
  id: string;
  email: string;
  name: string;
  role: StaffRole;
  /** What the member may do: the role's permissions, or the ones given to a custom role. */
  permissions: Permission[];
}

export interface ListedStaff extends StaffView {
  createdAt: string;
  updatedAt: string;
  removedAt: string | null;
}

export interface NewStaff {
  email: string;
  name: string;
  role: StaffRole;
  /** Role `custom` only. */
  permissions?: string[];
}

/** A refusal the operator can act on; the command line prints its code. */
export class StaffError extends Error {
  constructor(
    readonly code: 'STAFF_NOT_FOUND' | 'STAFF_EXISTS' | 'STAFF_REMOVED' | 'INVALID_ROLE' | 'STORE_NOT_FOUND',
    message: string,
  ) {
    super(message);
  }
}

interface StaffRow {
  id: string;
  store_id: string;
  email: string;
  name: string;
  role: StaffRole;
  permissions: string[];
  created_at: Date;
  updated_at: Date;
  removed_at: Date | null;
}

/**
 * The members of a store's staff, managed by operators with the command line. A change to a member
 * (role, permissions, removal) is published at once, so it holds on every instance from the next request.
 */
@Injectable()
export class StaffMembers {
  constructor(
    private readonly em: EntityManager,
    private readonly hasher: PasswordHasher,
    private readonly principals: DashboardPrincipals,
  ) {}

  /** Adds a member with a generated password, answered once; only its argon2id hash is kept. */
  async add(storeId: string, input: NewStaff): Promise<{ staff: StaffView; password: string }> {
    const permissions = customPermissions(input.role, input.permissions);
    const password = randomAlphanumeric(GENERATED_PASSWORD_LENGTH);
    const passwordHash = await this.hasher.hash(password);
    const { rows } = await sql<StaffRow>`
      insert into staff_members (store_id, email, email_normalized, name, role, permissions, password_hash)
      select id, ${input.email.trim()}, ${normalizeStaffEmail(input.email)}, ${input.name.trim()}, ${input.role}, ${permissions}::text[], ${passwordHash}
      from stores where id = ${storeId}
      on conflict (store_id, email_normalized) do nothing
      returning *`.execute(this.em.getKysely());
    if (rows.length === 0) {
      const { rows: stores } = await sql`select 1 from stores where id = ${storeId}`.execute(this.em.getKysely());
      if (stores.length === 0) throw new StaffError('STORE_NOT_FOUND', `no store with id ${storeId}`);
      throw new StaffError('STAFF_EXISTS', `the store already has a staff member with the email ${normalizeStaffEmail(input.email)}`);
    }
    return { staff: view(rows[0]), password };
  }

  /** Every member of the store, removed ones included (with removedAt); never a password or its hash. */
  async list(storeId: string): Promise<ListedStaff[]> {
    const { rows } = await sql<StaffRow>`
      select id, store_id, email, name, role, permissions, created_at, updated_at, removed_at
      from staff_members where store_id = ${storeId} order by created_at, id`.execute(this.em.getKysely());
    return rows.map((row) => ({
      ...view(row),
      createdAt: new Date(row.created_at).toISOString(),
      updatedAt: new Date(row.updated_at).toISOString(),
      removedAt: row.removed_at ? new Date(row.removed_at).toISOString() : null,
    }));
  }

  /** A new role (and, for `custom`, its permissions); takes effect on the member's next request, on every instance. */
  async setRole(staffId: string, role: StaffRole, given?: string[]): Promise<StaffView> {
    const permissions = customPermissions(role, given);
    const { rows } = await sql<StaffRow>`
      update staff_members set role = ${role}, permissions = ${permissions}::text[], updated_at = now()
      where id = ${staffId} and removed_at is null
      returning *`.execute(this.em.getKysely());
    if (rows.length === 0) throw await this.missing(staffId);
    await this.principals.publish(`staff:${staffId}`);
    return view(rows[0]);
  }

  /** Removes the member and ends every one of their sessions at once. */
  async remove(staffId: string): Promise<{ id: string; removedAt: string; sessionsEnded: number }> {
    const removed = await this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      const { rows } = await sql<{ removed_at: Date }>`
        update staff_members set removed_at = now(), updated_at = now()
        where id = ${staffId} and removed_at is null
        returning removed_at`.execute(db);
      if (rows.length === 0) return null;
      const ended = await sql`
        update staff_sessions set revoked_at = now(), revoked_reason = 'staff_removed'
        where staff_member_id = ${staffId} and revoked_at is null`.execute(db);
      return { removedAt: new Date(rows[0].removed_at).toISOString(), sessionsEnded: Number(ended.numAffectedRows ?? 0) };
    });
    if (!removed) throw await this.missing(staffId);
    await this.principals.publish(`staff:${staffId}`);
    return { id: staffId, ...removed };
  }

  private async missing(staffId: string): Promise<StaffError> {
    const { rows } = await sql`select 1 from staff_members where id = ${staffId}`.execute(this.em.getKysely());
    return rows.length === 0
      ? new StaffError('STAFF_NOT_FOUND', `no staff member with id ${staffId}`)
      : new StaffError('STAFF_REMOVED', `staff member ${staffId} was removed`);
  }
}

/** The list kept for a custom role; every other role keeps none (its permissions are the role's). */
function customPermissions(role: StaffRole, given: string[] | undefined): Permission[] {
  if (!STAFF_ROLES.includes(role)) throw new StaffError('INVALID_ROLE', `role must be one of ${STAFF_ROLES.join(', ')}`);
  if (role !== 'custom') {
    if (given !== undefined) throw new StaffError('INVALID_ROLE', 'permissions are given only with role custom');
    return [];
  }
  const unknown = (given ?? []).filter((permission) => !isPermission(permission));
  if (!given || given.length === 0 || unknown.length > 0) {
    throw new StaffError(
      'INVALID_ROLE',
      `role custom needs a list of known permissions${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return permissionsOf('custom', given);
}

function view(row: StaffRow): StaffView {
  return { id: row.id, email: row.email, name: row.name, role: row.role, permissions: permissionsOf(row.role, row.permissions) };
}
