import { sql, type RawBuilder } from 'kysely';
import type { AddressSnapshot } from '../common/address.js';
import type { Locale } from '../common/locale.js';

/** A shopper who arrives with a history (demo data, an import). Times are epoch seconds. */
export interface NewShopper {
  id: string;
  /** Already normalised (trimmed, lower case): it is the shopper's identity in the store. */
  email: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  locale: Locale;
  marketingOptIn: boolean;
  emailVerifiedAt: number | null;
  createdAt: number;
}

export interface NewAddress extends AddressSnapshot {
  shopperId: string;
  label: string;
  isDefault: boolean;
  createdAt: number;
}

/**
 * Shoppers and addresses in bulk: the `new_shoppers` and `new_addresses` parts of a WITH statement,
 * over unnest()ed arrays. Sign-up and the address book write single rows their own way, in this module.
 */
export function shopperInserts(storeId: string, shoppers: NewShopper[], addresses: NewAddress[]): RawBuilder<unknown> {
  const of = <T, V>(rows: T[], pick: (row: T) => V): V[] => rows.map(pick);
  return sql`
    new_shoppers as (
      insert into shoppers (id, store_id, email, email_normalized, first_name, last_name, phone, locale, marketing_opt_in,
                            email_verified_at, created_at, updated_at)
      select s.id, ${storeId}, s.email, s.email, s.first_name, s.last_name, s.phone, s.locale, s.opt_in,
             to_timestamp(s.verified_at), to_timestamp(s.created_at), to_timestamp(s.created_at)
      from unnest(${of(shoppers, (s) => s.id)}::uuid[], ${of(shoppers, (s) => s.email)}::text[], ${of(shoppers, (s) => s.firstName)}::text[],
                  ${of(shoppers, (s) => s.lastName)}::text[], ${of(shoppers, (s) => s.phone)}::text[], ${of(shoppers, (s) => s.locale)}::text[],
                  ${of(shoppers, (s) => s.marketingOptIn)}::boolean[], ${of(shoppers, (s) => s.emailVerifiedAt)}::float8[],
                  ${of(shoppers, (s) => s.createdAt)}::float8[])
        as s(id, email, first_name, last_name, phone, locale, opt_in, verified_at, created_at)
    ), new_addresses as (
      insert into addresses (store_id, shopper_id, label, full_name, phone, line1, line2, district, city, region, postal_code, country,
                             is_default_shipping, created_at, updated_at)
      select ${storeId}, a.shopper_id, a.label, a.full_name, a.phone, a.line1, a.line2, a.district, a.city, a.region, a.postal_code, a.country,
             a.is_default, to_timestamp(a.created_at), to_timestamp(a.created_at)
      from unnest(${of(addresses, (a) => a.shopperId)}::uuid[], ${of(addresses, (a) => a.label)}::text[], ${of(addresses, (a) => a.fullName)}::text[],
                  ${of(addresses, (a) => a.phone)}::text[], ${of(addresses, (a) => a.line1)}::text[], ${of(addresses, (a) => a.line2)}::text[],
                  ${of(addresses, (a) => a.district)}::text[], ${of(addresses, (a) => a.city)}::text[], ${of(addresses, (a) => a.region)}::text[],
                  ${of(addresses, (a) => a.postalCode)}::text[], ${of(addresses, (a) => a.country)}::text[], ${of(addresses, (a) => a.isDefault)}::boolean[],
                  ${of(addresses, (a) => a.createdAt)}::float8[])
        as a(shopper_id, label, full_name, phone, line1, line2, district, city, region, postal_code, country, is_default, created_at)
    )`;
}
