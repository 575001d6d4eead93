import { Inject, Injectable } from '@nestjs/common';
import { isScope, type Scope } from '../common/scopes.js';
import type { Transport } from './entities/session.entity.js';
import { SignedTokens, type TokenKind } from './signed-tokens.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from './signing/signing-key-store.js';

export interface AccessClaims {
  sessionId: string;
  storeId: string;
  scopes: readonly Scope[];
  transport: Transport;
  csrfHash?: string;
}

/** Storefront session tokens: their own audience, so dashboard tokens are not accepted on /v1. */
const STOREFRONT_TOKENS: TokenKind<AccessClaims> = {
  audience: 'storefront-api',
  requiredClaims: ['sid', 'store', 'scope'],
  toPayload: (claims) => ({
    sid: claims.sessionId,
    store: claims.storeId,
    scope: claims.scopes.join(' '),
    trn: claims.transport,
    ...(claims.csrfHash ? { csrf: claims.csrfHash } : {}),
  }),
  fromPayload: (payload) => {
    if (typeof payload.sid !== 'string' || typeof payload.store !== 'string') return undefined;
    return {
      sessionId: payload.sid,
      storeId: payload.store,
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(isScope) : [],
      transport: payload.trn === 'cookie' ? 'cookie' : 'bearer',
      csrfHash: typeof payload.csrf === 'string' ? payload.csrf : undefined,
    };
  },
};

/** Signs and verifies storefront access tokens: short-lived JWTs, asymmetric, `kid` in the header. */
@Injectable()
export class TokenService {
  private readonly tokens: SignedTokens<AccessClaims>;

  constructor(@Inject(SIGNING_KEY_STORE) keys: SigningKeyStore) {
    this.tokens = new SignedTokens(keys, STOREFRONT_TOKENS);
  }

  /** A compact JWS (RFC 7515) over the claims, signed with the store's active key. */
  sign(claims: AccessClaims, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    return this.tokens.sign(claims, { issuedAt: now });
  }

  /** The claims of a valid token (cached once verified); `TOKEN_EXPIRED` or `UNAUTHENTICATED` otherwise. */
  verify(token: string): Promise<AccessClaims> {
    return this.tokens.verify(token);
  }
}
