import { Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { randomUUID, sign } from 'node:crypto';
import { BoundedMap } from '../common/cache/bounded-map.js';
import { ApiError } from '../common/errors/api-error.js';
import { isScope, type Scope } from '../common/scopes.js';
import type { Transport } from './entities/session.entity.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from './signing/signing-key-store.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

const ISSUER = 'storefront';
const AUDIENCE = 'storefront-api';
/** Verified tokens kept so a session's repeated calls skip the signature check; oldest dropped first. */
const VERIFIED_CACHE_MAX = 10_000;

interface VerifiedToken {
  claims: AccessClaims;
  kid: string;
  expiresAtMs: number;
}

export interface AccessClaims {
  sessionId: string;
  storeId: string;
  scopes: readonly Scope[];
  transport: Transport;
  csrfHash?: string;
}

/** Signs and verifies access tokens: short-lived JWTs, asymmetric, `kid` in the header. */
@Injectable()
export class TokenService {
  private readonly verified = new BoundedMap<string, VerifiedToken>(VERIFIED_CACHE_MAX);

  constructor(@Inject(SIGNING_KEY_STORE) private readonly keys: SigningKeyStore) {}

  /** A compact JWS (RFC 7515) over the claims, signed with the store's active key. */
  async sign(claims: AccessClaims, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const key = await this.keys.active();
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + ACCESS_TOKEN_TTL_SECONDS;
    const header = { alg: key.algorithm, kid: key.kid, typ: 'at+jwt' };
    const payload = {
      iss: ISSUER,
      aud: AUDIENCE,
      sub: claims.sessionId,
      jti: randomUUID(),
      iat: issuedAt,
      exp: expiresAt,
      sid: claims.sessionId,
      store: claims.storeId,
      scope: claims.scopes.join(' '),
      trn: claims.transport,
      ...(claims.csrfHash ? { csrf: claims.csrfHash } : {}),
    };
    const signingInput = `${base64url(header)}.${base64url(payload)}`;
    const signature = sign(null, Buffer.from(signingInput), key.privateKey).toString('base64url');
    return { token: `${signingInput}.${signature}`, expiresAt: new Date(expiresAt * 1000) };
  }

  /**
   * The claims of a valid token; `TOKEN_EXPIRED` or `UNAUTHENTICATED` otherwise. A token already
   * verified is answered from memory: it is keyed by its exact text (a tampered token misses), it
   * leaves the cache when it expires, and its key must still be one the store verifies with.
   */
  async verify(token: string): Promise<AccessClaims> {
    const known = this.verified.get(token);
    if (known) {
      if (Date.now() < known.expiresAtMs && (await this.keys.verificationKey(known.kid))) return known.claims;
      this.verified.delete(token);
    }
    const { claims, kid, expiresAtMs } = await this.verifySignature(token);
    this.verified.set(token, { claims, kid, expiresAtMs });
    return claims;
  }

  private async verifySignature(token: string): Promise<VerifiedToken> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new ApiError('UNAUTHENTICATED');
    }
    const key = kid ? await this.keys.verificationKey(kid) : undefined;
    if (!key) throw new ApiError('UNAUTHENTICATED');
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        issuer: ISSUER,
        audience: AUDIENCE,
        typ: 'at+jwt',
        requiredClaims: ['sid', 'store', 'scope', 'exp', 'iat'],
      });
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(isScope) : [];
      if (typeof payload.sid !== 'string' || typeof payload.store !== 'string') throw new ApiError('UNAUTHENTICATED');
      const claims: AccessClaims = {
        sessionId: payload.sid,
        storeId: payload.store,
        scopes,
        transport: payload.trn === 'cookie' ? 'cookie' : 'bearer',
        csrfHash: typeof payload.csrf === 'string' ? payload.csrf : undefined,
      };
      return { claims, kid: kid!, expiresAtMs: payload.exp! * 1000 };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new ApiError('TOKEN_EXPIRED');
      throw new ApiError('UNAUTHENTICATED');
    }
  }
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
