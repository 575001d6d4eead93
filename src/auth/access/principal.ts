import type { Scope } from '../../common/scopes.js';
import type { Transport } from '../entities/session.entity.js';

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
