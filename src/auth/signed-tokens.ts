import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { randomUUID, sign } from 'node:crypto';
import { BoundedMap } from '../common/cache/bounded-map.js';
import { ApiError } from '../common/errors/api-error.js';
import type { SigningKeyStore } from './signing/signing-key-store.js';
import { ACCESS_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

export const TOKEN_ISSUER = 'storefront';
/** Verified tokens kept so a session's repeated calls skip the signature check; oldest dropped first. */
const VERIFIED_CACHE_MAX = 10_000;

/**
 * One kind of access token: its audience, and how its claims are written into and read out of a
 * payload. Storefront and dashboard tokens differ by audience, so neither is accepted as the other.
 */
export interface TokenKind<C> {
  audience: string;
  /** Claims every token of this kind carries, besides `exp` and `iat`. */
  requiredClaims: string[];
  /** The kind's own claims (the session id goes in `sub` and `sid`). */
  toPayload(claims: C): { sid: string } & Record<string, unknown>;
  /** The claims of a payload whose signature, issuer, audience and lifetime have been checked; undefined when malformed. */
  fromPayload(payload: JWTPayload): C | undefined;
}

interface VerifiedToken<C> {
  claims: C;
  kid: string;
  expiresAtMs: number;
}

/**
 * Signs and verifies access tokens of one kind: compact JWS (RFC 7515), EdDSA with the store's active
 * signing key, `kid` in the header, `typ` at+jwt.
 */
export class SignedTokens<C> {
  private readonly verified = new BoundedMap<string, VerifiedToken<C>>(VERIFIED_CACHE_MAX);

  constructor(
    private readonly keys: SigningKeyStore,
    private readonly kind: TokenKind<C>,
  ) {}

  /** Lives ACCESS_TOKEN_TTL_SECONDS from `issuedAt` unless `expiresAt` says otherwise. */
  async sign(claims: C, options: { issuedAt?: Date; expiresAt?: Date } = {}): Promise<{ token: string; expiresAt: Date }> {
    const key = await this.keys.active();
    const issuedAt = Math.floor((options.issuedAt ?? new Date()).getTime() / 1000);
    const expiresAt = options.expiresAt ? Math.floor(options.expiresAt.getTime() / 1000) : issuedAt + ACCESS_TOKEN_TTL_SECONDS;
    const header = { alg: key.algorithm, kid: key.kid, typ: 'at+jwt' };
    const own = this.kind.toPayload(claims);
    const payload = { iss: TOKEN_ISSUER, aud: this.kind.audience, sub: own.sid, jti: randomUUID(), iat: issuedAt, exp: expiresAt, ...own };
    const signingInput = `${base64url(header)}.${base64url(payload)}`;
    const signature = sign(null, Buffer.from(signingInput), key.privateKey).toString('base64url');
    return { token: `${signingInput}.${signature}`, expiresAt: new Date(expiresAt * 1000) };
  }

  /**
   * The claims of a valid token; `TOKEN_EXPIRED` or `UNAUTHENTICATED` otherwise. A token already
   * verified is answered from memory: it is keyed by its exact text (a tampered token misses), it
   * leaves the cache when it expires, and its key must still be one the store verifies with.
   */
  async verify(token: string): Promise<C> {
    const known = this.verified.get(token);
    if (known) {
      if (Date.now() < known.expiresAtMs && (await this.keys.verificationKey(known.kid))) return known.claims;
      this.verified.delete(token);
    }
    const verified = await this.verifySignature(token);
    this.verified.set(token, verified);
    return verified.claims;
  }

  private async verifySignature(token: string): Promise<VerifiedToken<C>> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw new ApiError('UNAUTHENTICATED');
    }
    const key = kid ? await this.keys.verificationKey(kid) : undefined;
    if (!key) throw new ApiError('UNAUTHENTICATED');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ['EdDSA'],
        issuer: TOKEN_ISSUER,
        audience: this.kind.audience,
        typ: 'at+jwt',
        requiredClaims: [...this.kind.requiredClaims, 'exp', 'iat'],
      }));
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw new ApiError('TOKEN_EXPIRED');
      throw new ApiError('UNAUTHENTICATED');
    }
    const claims = this.kind.fromPayload(payload);
    if (!claims) throw new ApiError('UNAUTHENTICATED');
    return { claims, kid: kid!, expiresAtMs: payload.exp! * 1000 };
  }
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
