import { Inject, Injectable } from '@nestjs/common';
import type { Transport } from '../entities/session.entity.js';
import { SignedTokens, type TokenKind } from '../signed-tokens.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from '../signing/signing-key-store.js';

/**
 * What a dashboard access token says: whose session it is, nothing more. Permissions, role, plan and
 * whether the session still stands are read at request time (DashboardPrincipals), not from the token.
 */
export type AdminClaims =
  | { kind: 'staff'; sessionId: string; transport: Transport; csrfHash?: string }
  /**
   * A support session's token carries its id, and the CSRF binding once it was exchanged for cookies; it
   * expires when the session does.
   */
  | { kind: 'support'; sessionId: string; csrfHash?: string };

/** Dashboard tokens have their own audience: refused on /v1, as storefront tokens are refused under /admin. */
const DASHBOARD_TOKENS: TokenKind<AdminClaims> = {
  audience: 'storefront-admin',
  requiredClaims: ['sid', 'knd'],
  toPayload: (claims) =>
    claims.kind === 'support'
      ? { sid: claims.sessionId, knd: 'support', ...(claims.csrfHash ? { csrf: claims.csrfHash } : {}) }
      : { sid: claims.sessionId, knd: 'staff', trn: claims.transport, ...(claims.csrfHash ? { csrf: claims.csrfHash } : {}) },
  fromPayload: (payload) => {
    if (typeof payload.sid !== 'string') return undefined;
    const csrfHash = typeof payload.csrf === 'string' ? payload.csrf : undefined;
    if (payload.knd === 'support') return { kind: 'support', sessionId: payload.sid, csrfHash };
    if (payload.knd !== 'staff') return undefined;
    return { kind: 'staff', sessionId: payload.sid, transport: payload.trn === 'cookie' ? 'cookie' : 'bearer', csrfHash };
  },
};

@Injectable()
export class AdminTokenService {
  private readonly tokens: SignedTokens<AdminClaims>;

  constructor(@Inject(SIGNING_KEY_STORE) keys: SigningKeyStore) {
    this.tokens = new SignedTokens(keys, DASHBOARD_TOKENS);
  }

  /** A staff session's access token: 15 minutes, like the storefront's. */
  signStaff(sessionId: string, transport: Transport, csrfHash?: string, issuedAt = new Date()) {
    return this.tokens.sign({ kind: 'staff', sessionId, transport, csrfHash }, { issuedAt });
  }

  /** A support session's token, valid until the session expires; bound to a CSRF token when it travels in a cookie. */
  signSupport(sessionId: string, expiresAt: Date, csrfHash?: string) {
    return this.tokens.sign({ kind: 'support', sessionId, csrfHash }, { expiresAt });
  }

  verify(token: string): Promise<AdminClaims> {
    return this.tokens.verify(token);
  }
}
