import { Inject, Injectable } from '@nestjs/common';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../common/errors/api-error.js';
import { isScope, type Scope } from './access/scopes.js';
import type { Transport } from './entities/session.entity.js';
import { SIGNING_KEY_STORE, type SigningKeyStore } from './signing/signing-key-store.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

const ISSUER = 'storefront';
const AUDIENCE = 'storefront-api';

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
  constructor(@Inject(SIGNING_KEY_STORE) private readonly keys: SigningKeyStore) {}

  async sign(claims: AccessClaims, now = new Date()): Promise<{ token: string; expiresAt: Date }> {
    const key = await this.keys.active();
    const issuedAt = Math.floor(now.getTime() / 1000);
    const expiresAt = issuedAt + ACCESS_TOKEN_TTL_SECONDS;
    const token = await new SignJWT({
      sid: claims.sessionId,
      store: claims.storeId,
      scope: claims.scopes.join(' '),
      trn: claims.transport,
      ...(claims.csrfHash ? { csrf: claims.csrfHash } : {}),
    })
      .setProtectedHeader({ alg: key.algorithm, kid: key.kid, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject(claims.sessionId)
      .setJti(randomUUID())
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(key.privateKey);
    return { token, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The claims of a valid token; `TOKEN_EXPIRED` or `UNAUTHENTICATED` otherwise. */
  async verify(token: string): Promise<AccessClaims> {
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
      return {
        sessionId: payload.sid,
        storeId: payload.store,
        scopes,
        transport: payload.trn === 'cookie' ? 'cookie' : 'bearer',
        csrfHash: typeof payload.csrf === 'string' ? payload.csrf : undefined,
      };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new ApiError('TOKEN_EXPIRED');
      throw new ApiError('UNAUTHENTICATED');
    }
  }
}
