import type { Locale } from '../common/locale.js';
import type { Entitlement, Permission, StorePlan, StaffRole } from '../common/permissions.js';
import type { Scope } from '../common/scopes.js';
import type { Transport } from './entities/session.entity.js';

/** Who is calling, as established by the access guard and attached to the request. */
export interface SessionPrincipal {
  kind: 'session';
  sessionId: string;
  storeId: string;
  scopes: readonly Scope[];
  /** How the access token arrived: cookie-borne requests are subject to CSRF checks. */
  via: 'header' | 'cookie';
  transport: Transport;
  /** Hash of the session's CSRF token (cookie transport only). */
  csrfHash?: string;
}

/**
 * A dashboard caller (contract section 7): a staff member signed in to one store, or a support
 * agent's read-only session. Permissions and entitlements are read at request time, not from the token.
 */
export interface AdminPrincipal {
  kind: 'staff' | 'support';
  storeId: string;
  /** The staff session, or the support session. */
  sessionId: string;
  /** Staff only. */
  staff?: { id: string; email: string; name: string; role: StaffRole };
  /** Support only. */
  support?: { agent: string; reason: string; expiresAt: string };
  store: { id: string; name: string; plan: StorePlan; timezone: string; currency: string };
  permissions: readonly Permission[];
  entitlements: readonly Entitlement[];
  /** Support sessions never write. */
  readOnly: boolean;
  /** The language the caller reads (headers of exports, messages); English unless known otherwise. */
  locale: Locale;
}
