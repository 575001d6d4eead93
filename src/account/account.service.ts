import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { SessionPrincipal } from '../auth/principal.js';
import { SessionShoppers } from '../auth/session-shoppers.service.js';
import { ApiError } from '../common/errors/api-error.js';
import type { RenderedJson } from '../infra/http/rendered-json.js';
import { NotificationFailedError } from '../notifications/notifier.js';
import { NotificationsService } from '../notifications/notifications.service.js';
import { CartService } from '../storefront/cart/cart.service.js';
import type { CodeSentResponse } from './dto/account.response.js';
import type { RegisterDto, RequestCodeDto, SignInDto, VerifyCodeDto } from './dto/sign-in.dto.js';
import { normalizeEmail } from './email.js';
import type { MatchedCode } from './one-time-codes.js';
import { CODE_LIFETIME_MINUTES, OneTimeCodes, type IssuedCode } from './one-time-codes.js';
import type { Locale } from '../common/locale.js';
import type { PendingRegistration } from './entities/one-time-code.entity.js';
import { PasswordHasher } from '../infra/crypto/password-hasher.js';
import { ProfileService } from './profile.service.js';
import { SignInLimiter } from './sign-in-limiter.js';

/** How long a client should wait before asking again when the mail server failed. */
const DELIVERY_RETRY_SECONDS = 30;

type CodeTemplate = 'sign_in_code' | 'registration_code' | 'already_registered_code';

interface KnownShopper {
  email: string;
  locale: Locale;
}

/**
 * Registration, sign-in and sign-out. No answer tells whether an address has an account: registering
 * and requesting a code always answer 202 and send an email either way, and every failed password
 * sign-in is the same 401 after the same amount of work.
 */
@Injectable()
export class AccountService {
  constructor(
    private readonly em: EntityManager,
    private readonly sessions: SessionShoppers,
    private readonly carts: CartService,
    private readonly hasher: PasswordHasher,
    private readonly codes: OneTimeCodes,
    private readonly limiter: SignInLimiter,
    private readonly notifications: NotificationsService,
    private readonly profiles: ProfileService,
  ) {}

  /**
   * Proves the address before any account exists: a new address gets a confirmation code whose row
   * holds the pending registration; a registered one gets a sign-in code and keeps its password.
   */
  async register(principal: SessionPrincipal, dto: RegisterDto, requestLocale: Locale | undefined): Promise<CodeSentResponse> {
    const owner = await this.sessions.ownerOf(principal);
    const email = normalizeEmail(dto.email);
    // Hashed whether or not it is kept, so both answers take the same time.
    const passwordHash = await this.hasher.hash(dto.password);
    const known = await this.findShopper(owner.storeId, email);
    if (known) {
      const issued = await this.codes.issue(owner.storeId, email, 'sign_in', null);
      await this.deliver(owner.storeId, known.email, dto.locale ?? known.locale, 'already_registered_code', issued);
      return { status: 'verification_sent', email: dto.email, expiresAt: issued.expiresAt };
    }
    const registration: PendingRegistration = {
      email: dto.email,
      passwordHash,
      firstName: dto.firstName ?? '',
      lastName: dto.lastName ?? '',
      locale: dto.locale ?? requestLocale ?? 'ar',
      marketingOptIn: dto.marketingOptIn ?? false,
    };
    const issued = await this.codes.issue(owner.storeId, email, 'register', registration);
    await this.deliver(owner.storeId, dto.email, registration.locale, 'registration_code', issued);
    return { status: 'verification_sent', email: dto.email, expiresAt: issued.expiresAt };
  }

  /** A sign-in code for any address; for an address without an account, verifying it creates a password-less shopper. */
  async requestCode(principal: SessionPrincipal, dto: RequestCodeDto, requestLocale: Locale | undefined): Promise<CodeSentResponse> {
    const owner = await this.sessions.ownerOf(principal);
    const email = normalizeEmail(dto.email);
    const known = await this.findShopper(owner.storeId, email);
    const locale = dto.locale ?? known?.locale ?? requestLocale ?? 'ar';
    const registration: PendingRegistration | null = known
      ? null
      : { email: dto.email, passwordHash: null, firstName: '', lastName: '', locale, marketingOptIn: false };
    const issued = await this.codes.issue(owner.storeId, email, 'sign_in', registration);
    await this.deliver(owner.storeId, known?.email ?? dto.email, locale, 'sign_in_code', issued);
    return { status: 'code_sent', email: dto.email, expiresAt: issued.expiresAt };
  }

  async verifyCode(principal: SessionPrincipal, dto: VerifyCodeDto): Promise<RenderedJson> {
    const { storeId } = principal;
    const email = normalizeEmail(dto.email);
    const matched = await this.codes.match(storeId, email, dto.code);
    const shopperId = await this.em.fork().transactional(async (em) => {
      const current = await this.lockSession(em, principal);
      await this.codes.consume(em, matched.id);
      const shopperId = await this.shopperProvenBy(em, storeId, email, matched);
      await this.attach(em, principal, current, shopperId);
      return shopperId;
    });
    return this.profiles.render(storeId, shopperId);
  }

  async signIn(principal: SessionPrincipal, dto: SignInDto): Promise<RenderedJson> {
    const { storeId } = principal;
    const email = normalizeEmail(dto.email);
    const attempt = await this.limiter.begin(storeId, email);
    const { rows } = await sql<{ id: string; password_hash: string | null }>`
      select id, password_hash from shoppers where store_id = ${storeId} and email_normalized = ${email}`.execute(this.em.getKysely());
    const shopper = rows[0];
    const check = shopper?.password_hash
      ? await this.hasher.verify(dto.password, shopper.password_hash)
      : await this.hasher.verifyAgainstNothing(dto.password);
    if (!shopper || !check.valid) throw new ApiError('INVALID_CREDENTIALS');
    await this.limiter.release(attempt);
    const rehashed = check.needsRehash ? await this.hasher.hash(dto.password) : undefined;
    await this.em.fork().transactional(async (em) => {
      const current = await this.lockSession(em, principal);
      if (rehashed !== undefined) {
        await sql`update shoppers set password_hash = ${rehashed}, updated_at = now() where id = ${shopper.id}`.execute(em.getKysely());
      }
      await this.attach(em, principal, current, shopper.id);
    });
    return this.profiles.render(storeId, shopper.id);
  }

  /** Back to anonymous; the shopper's cart stays the shopper's. Idempotent. */
  async signOut(principal: SessionPrincipal): Promise<void> {
    await this.em.fork().transactional(async (em) => {
      await this.lockSession(em, principal);
      await this.sessions.detach(em, principal.sessionId);
    });
  }

  private async findShopper(storeId: string, email: string): Promise<KnownShopper | undefined> {
    const { rows } = await sql<KnownShopper>`
      select email, locale from shoppers where store_id = ${storeId} and email_normalized = ${email}`.execute(this.em.getKysely());
    return rows[0];
  }

  private async deliver(storeId: string, to: string, locale: Locale, template: CodeTemplate, issued: IssuedCode): Promise<void> {
    try {
      await this.notifications.send<CodeTemplate>({
        storeId,
        to,
        locale,
        template,
        vars: { code: issued.code, expiresInMinutes: CODE_LIFETIME_MINUTES },
      });
    } catch (error) {
      await this.codes.withdraw(issued.id);
      if (error instanceof NotificationFailedError) {
        throw new ApiError('SERVICE_UNAVAILABLE', { headers: { 'Retry-After': DELIVERY_RETRY_SECONDS } });
      }
      throw error;
    }
  }

  /**
   * The session row, locked for the rest of the transaction: it is always locked first (before any
   * code, shopper or cart row) so concurrent sign-ins queue instead of deadlocking.
   */
  private async lockSession(em: EntityManager, principal: SessionPrincipal): Promise<string | null> {
    const { rows } = await sql<{ shopper_id: string | null; revoked: boolean }>`
      select shopper_id, revoked_at is not null as revoked from sessions
      where id = ${principal.sessionId} and store_id = ${principal.storeId} for update`.execute(em.getKysely());
    if (!rows[0] || rows[0].revoked) throw new ApiError('UNAUTHENTICATED');
    return rows[0].shopper_id;
  }

  /** The shopper the code proves: created from the pending registration when the address has none yet. */
  private async shopperProvenBy(em: EntityManager, storeId: string, email: string, code: MatchedCode): Promise<string> {
    const db = em.getKysely();
    const pending: PendingRegistration = code.registration ?? {
      email,
      passwordHash: null,
      firstName: '',
      lastName: '',
      locale: 'ar',
      marketingOptIn: false,
    };
    const created = await sql<{ id: string }>`
      insert into shoppers (store_id, email, email_normalized, password_hash, first_name, last_name, locale, marketing_opt_in, email_verified_at)
      values (${storeId}, ${pending.email}, ${email}, ${pending.passwordHash}, ${pending.firstName}, ${pending.lastName},
              ${pending.locale}, ${pending.marketingOptIn}, now())
      on conflict (store_id, email_normalized) do nothing
      returning id`.execute(db);
    if (created.rows[0]) return created.rows[0].id;
    // The address got an account after the code was sent. Its owner just proved the address, so a
    // registration may give a password-less account its password; an existing password stays.
    const { rows } = await sql<{ id: string }>`
      update shoppers set
        email_verified_at = coalesce(email_verified_at, now()),
        password_hash = coalesce(password_hash, ${code.purpose === 'register' ? pending.passwordHash : null}),
        updated_at = now()
      where store_id = ${storeId} and email_normalized = ${email}
      returning id`.execute(db);
    return rows[0].id;
  }

  /** Attaches the shopper and merges the anonymous cart in the caller's transaction; the same shopper again changes nothing. */
  private async attach(em: EntityManager, principal: SessionPrincipal, current: string | null, shopperId: string): Promise<void> {
    if (current === shopperId) return;
    if (current !== null) throw new ApiError('ALREADY_SIGNED_IN');
    await this.sessions.attach(em, principal.sessionId, shopperId);
    await this.carts.mergeIntoShopper(em, principal.storeId, principal.sessionId, shopperId);
  }
}
