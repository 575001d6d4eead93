import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { SessionPrincipal } from '../auth/principal.js';
import { SessionShoppers } from '../auth/session-shoppers.service.js';
import { ApiError, invalidField } from '../common/errors/api-error.js';
import { RenderedJson } from '../infra/http/rendered-json.js';
import type { UpdateProfileDto } from './dto/profile.dto.js';
import { PasswordHasher } from '../infra/crypto/password-hasher.js';
import { SignInLimiter } from './sign-in-limiter.js';

/** The signed-in shopper's own record. Never carries the password hash: only whether there is one. */
@Injectable()
export class ProfileService {
  constructor(
    private readonly em: EntityManager,
    private readonly sessions: SessionShoppers,
    private readonly hasher: PasswordHasher,
    private readonly limiter: SignInLimiter,
  ) {}

  async get(principal: SessionPrincipal): Promise<RenderedJson> {
    const owner = await this.sessions.requireShopper(principal);
    return this.render(owner.storeId, owner.shopperId);
  }

  async render(storeId: string, shopperId: string): Promise<RenderedJson> {
    const { rows } = await sql<{ doc: string }>`
      select json_build_object(
        'id', s.id, 'email', s.email, 'firstName', s.first_name, 'lastName', s.last_name, 'phone', s.phone,
        'locale', s.locale, 'marketingOptIn', s.marketing_opt_in, 'emailVerified', s.email_verified_at is not null,
        'hasPassword', s.password_hash is not null, 'createdAt', iso_utc(s.created_at))::text as doc
      from shoppers s where s.id = ${shopperId} and s.store_id = ${storeId}`.execute(this.em.getKysely());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return RenderedJson.fromText(rows[0].doc);
  }

  /**
   * Changes the given fields. A new password needs the current one (unless the shopper has none yet)
   * and signs the shopper out of every other session.
   */
  async update(principal: SessionPrincipal, dto: UpdateProfileDto): Promise<RenderedJson> {
    const owner = await this.sessions.requireShopper(principal);
    if (dto.currentPassword !== undefined && dto.newPassword === undefined) {
      throw invalidField('newPassword', 'required', {
        en: 'Send newPassword with currentPassword to change the password.',
        ar: 'أرسل newPassword مع currentPassword لتغيير كلمة المرور.',
      });
    }
    const newHash = dto.newPassword === undefined ? undefined : await this.checkedNewPassword(owner.storeId, owner.shopperId, dto);
    const changes = [
      dto.firstName !== undefined && sql`first_name = ${dto.firstName}`,
      dto.lastName !== undefined && sql`last_name = ${dto.lastName}`,
      dto.phone !== undefined && sql`phone = ${dto.phone}`,
      dto.locale !== undefined && sql`locale = ${dto.locale}`,
      dto.marketingOptIn !== undefined && sql`marketing_opt_in = ${dto.marketingOptIn}`,
      newHash !== undefined && sql`password_hash = ${newHash}`,
    ].filter((change) => change !== false);
    if (changes.length > 0) {
      await this.em.fork().transactional(async (em) => {
        const db = em.getKysely();
        await sql`update shoppers set ${sql.join(changes)}, updated_at = now()
                  where id = ${owner.shopperId} and store_id = ${owner.storeId}`.execute(db);
        if (newHash !== undefined) await this.sessions.detachElsewhere(em, owner.shopperId, owner.sessionId);
      });
    }
    return this.render(owner.storeId, owner.shopperId);
  }

  /** The hash of the new password once the current one checks out (wrong guesses count toward the sign-in limit). */
  private async checkedNewPassword(storeId: string, shopperId: string, dto: UpdateProfileDto): Promise<string> {
    const { rows } = await sql<{ email_normalized: string; password_hash: string | null }>`
      select email_normalized, password_hash from shoppers where id = ${shopperId} and store_id = ${storeId}`.execute(this.em.getKysely());
    const { email_normalized: email, password_hash: currentHash } = rows[0];
    if (currentHash !== null) {
      if (dto.currentPassword === undefined) {
        throw invalidField('currentPassword', 'required', {
          en: 'Send your current password to set a new one.',
          ar: 'أرسل كلمة المرور الحالية لتعيين كلمة مرور جديدة.',
        });
      }
      const attempt = await this.limiter.begin(storeId, email);
      if (!(await this.hasher.verify(dto.currentPassword, currentHash)).valid) throw new ApiError('INVALID_CREDENTIALS');
      await this.limiter.release(attempt);
    }
    return this.hasher.hash(dto.newPassword as string);
  }
}
