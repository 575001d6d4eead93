import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql, type RawBuilder } from 'kysely';
import type { SessionPrincipal } from '../auth/principal.js';
import { SessionShoppers } from '../auth/session-shoppers.service.js';
import { ApiError, invalidField } from '../common/errors/api-error.js';
import { decodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../common/pagination/list-query.dto.js';
import { RenderedJson, renderPage } from '../infra/http/rendered-json.js';
import type { CreateAddressDto, UpdateAddressDto } from './dto/address.dto.js';

export const MAX_ADDRESSES = 50;

const ADDRESS_DOCUMENT = sql`json_build_object(
  'id', a.id, 'label', a.label, 'fullName', a.full_name, 'phone', a.phone, 'line1', a.line1, 'line2', a.line2,
  'district', a.district, 'city', a.city, 'region', a.region, 'postalCode', a.postal_code, 'country', a.country,
  'isDefaultShipping', a.is_default_shipping, 'createdAt', iso_utc(a.created_at), 'updatedAt', iso_utc(a.updated_at))`;

/** Field of the request → column it changes. */
const COLUMNS = {
  label: 'label',
  fullName: 'full_name',
  phone: 'phone',
  line1: 'line1',
  line2: 'line2',
  district: 'district',
  city: 'city',
  region: 'region',
  postalCode: 'postal_code',
  country: 'country',
} as const satisfies Record<Exclude<keyof CreateAddressDto, 'isDefaultShipping'>, string>;

/**
 * The signed-in shopper's address book. Writes lock the shopper row first, so the limit count and
 * the one-default rule hold under concurrent requests.
 */
@Injectable()
export class AddressesService {
  constructor(
    private readonly em: EntityManager,
    private readonly sessions: SessionShoppers,
  ) {}

  /** The default shipping address first, then the newest. */
  async list(principal: SessionPrincipal, query: ListQueryDto): Promise<RenderedJson> {
    const { shopperId } = await this.sessions.requireShopper(principal);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor
      ? decodeCursor<[number, string, string]>(query.cursor, ['number', UTC_MICROS_PATTERN, UUID_PATTERN])
      : undefined;
    const { rows } = await sql<{ doc: string; rank: number; sort_at: string; id: string }>`
      select ${ADDRESS_DOCUMENT}::text as doc, a.is_default_shipping::int as rank, iso_utc_micros(a.created_at) as sort_at, a.id
      from addresses a
      where a.shopper_id = ${shopperId} and a.store_id = ${principal.storeId}
      ${after ? sql`and (a.is_default_shipping::int, a.created_at, a.id) < (${after[0]}, ${after[1]}::timestamptz, ${after[2]}::uuid)` : sql``}
      order by a.is_default_shipping::int desc, a.created_at desc, a.id desc
      limit ${limit + 1}`.execute(this.em.getKysely());
    return renderPage(rows, limit, (row) => [row.rank, row.sort_at, row.id]);
  }

  async create(principal: SessionPrincipal, dto: CreateAddressDto): Promise<RenderedJson> {
    const { shopperId, storeId } = await this.sessions.requireShopper(principal);
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      const count = await this.lockShopper(em, shopperId);
      if (count >= MAX_ADDRESSES) throw new ApiError('ADDRESS_LIMIT_REACHED', { details: { limit: MAX_ADDRESSES } });
      const isDefault = dto.isDefaultShipping === true || count === 0;
      if (isDefault) await this.clearDefault(em, shopperId);
      const { rows } = await sql<{ doc: string }>`
        with a as (
          insert into addresses (store_id, shopper_id, label, full_name, phone, line1, line2, district, city, region, postal_code, country, is_default_shipping)
          values (${storeId}, ${shopperId}, ${dto.label ?? ''}, ${dto.fullName}, ${dto.phone}, ${dto.line1}, ${dto.line2 ?? ''},
                  ${dto.district ?? ''}, ${dto.city}, ${dto.region ?? ''}, ${dto.postalCode ?? ''}, ${dto.country}, ${isDefault})
          returning *
        )
        select ${ADDRESS_DOCUMENT}::text as doc from a`.execute(db);
      return RenderedJson.fromText(rows[0].doc);
    });
  }

  async update(principal: SessionPrincipal, addressId: string, dto: UpdateAddressDto): Promise<RenderedJson> {
    const { shopperId, storeId } = await this.sessions.requireShopper(principal);
    if (!UUID_PATTERN.test(addressId)) throw new ApiError('NOT_FOUND');
    return this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      await this.lockShopper(em, shopperId);
      const existing = await sql<{ is_default_shipping: boolean }>`
        select is_default_shipping from addresses where id = ${addressId} and shopper_id = ${shopperId} and store_id = ${storeId}`.execute(
        db,
      );
      if (!existing.rows[0]) throw new ApiError('NOT_FOUND');
      if (dto.isDefaultShipping === false && existing.rows[0].is_default_shipping) {
        throw invalidField('isDefaultShipping', 'defaultRequired', {
          en: 'This is the default shipping address. Make another address the default instead.',
          ar: 'هذا هو عنوان الشحن الافتراضي. اجعل عنوانًا آخر هو الافتراضي بدلًا من ذلك.',
        });
      }
      const changes: RawBuilder<unknown>[] = [];
      for (const [field, column] of Object.entries(COLUMNS)) {
        const value = dto[field as keyof typeof COLUMNS];
        if (value !== undefined) changes.push(sql`${sql.ref(column)} = ${value}`);
      }
      if (dto.isDefaultShipping === true && !existing.rows[0].is_default_shipping) {
        await this.clearDefault(em, shopperId);
        changes.push(sql`is_default_shipping = true`);
      }
      const { rows } = await sql<{ doc: string }>`
        with a as (
          update addresses set ${sql.join([...changes, sql`updated_at = now()`])}
          where id = ${addressId}
          returning *
        )
        select ${ADDRESS_DOCUMENT}::text as doc from a`.execute(db);
      return RenderedJson.fromText(rows[0].doc);
    });
  }

  /** Deleting the default makes the most recently updated remaining address the default. */
  async delete(principal: SessionPrincipal, addressId: string): Promise<void> {
    const { shopperId, storeId } = await this.sessions.requireShopper(principal);
    if (!UUID_PATTERN.test(addressId)) throw new ApiError('NOT_FOUND');
    await this.em.fork().transactional(async (em) => {
      const db = em.getKysely();
      await this.lockShopper(em, shopperId);
      const deleted = await sql<{ is_default_shipping: boolean }>`
        delete from addresses where id = ${addressId} and shopper_id = ${shopperId} and store_id = ${storeId}
        returning is_default_shipping`.execute(db);
      if (!deleted.rows[0]) throw new ApiError('NOT_FOUND');
      if (deleted.rows[0].is_default_shipping) {
        await sql`
          update addresses set is_default_shipping = true
          where id = (select id from addresses where shopper_id = ${shopperId} order by updated_at desc, id desc limit 1)`.execute(db);
      }
    });
  }

  /** Locks the shopper's row (serialising their address writes) and counts their addresses. */
  private async lockShopper(em: EntityManager, shopperId: string): Promise<number> {
    const db = em.getKysely();
    await sql`select 1 from shoppers where id = ${shopperId} for update`.execute(db);
    const { rows } = await sql<{ count: number }>`select count(*)::int as count from addresses where shopper_id = ${shopperId}`.execute(db);
    return rows[0].count;
  }

  /** The previous default stops being one; its updated_at stays, as the shopper did not edit it. */
  private async clearDefault(em: EntityManager, shopperId: string): Promise<void> {
    await sql`update addresses set is_default_shipping = false where shopper_id = ${shopperId} and is_default_shipping`.execute(
      em.getKysely(),
    );
  }
}
