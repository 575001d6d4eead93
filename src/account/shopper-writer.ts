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
  return sql`
    new_shoppers as (
      insert into shoppers (id, store_id, email, email_normalized, first_name, last_name, phone, locale, marketing_opt_in,
                            email_verified_at, created_at, updated_at)
      select s.id, ${storeId}, s.email, s.email, s.first_name, s.last_name, s.phone, s.locale, s.opt_in,
             to_timestamp(s.verified_at), to_timestamp(s.created_at), to_timestamp(s.created_at)
      from unnest(${shoppers.map((s) => s.id)}::uuid[], ${shoppers.map((s) => s.email)}::text[], ${shoppers.map((s) => s.firstName)}::text[],
                  ${shoppers.map((s) => s.lastName)}::text[], ${shoppers.map((s) => s.phone)}::text[], ${shoppers.map((s) => s.locale)}::text[],
                  ${shoppers.map((s) => s.marketingOptIn)}::boolean[], ${shoppers.map((s) => s.emailVerifiedAt)}::float8[],
                  ${shoppers.map((s) => s.createdAt)}::float8[])
        as s(id, email, first_name, last_name, phone, locale, opt_in, verified_at, created_at)
    ), new_addresses as (
      insert into addresses (store_id, shopper_id, label, full_name, phone, line1, line2, district, city, region, postal_code, country,
                             is_default_shipping, created_at, updated_at)
      select ${storeId}, a.shopper_id, a.label, a.full_name, a.phone, a.line1, a.line2, a.district, a.city, a.region, a.postal_code, a.country,
             a.is_default, to_timestamp(a.created_at), to_timestamp(a.created_at)
      from unnest(${addresses.map((a) => a.shopperId)}::uuid[], ${addresses.map((a) => a.label)}::text[], ${addresses.map((a) => a.fullName)}::text[],
                  ${addresses.map((a) => a.phone)}::text[], ${addresses.map((a) => a.line1)}::text[], ${addresses.map((a) => a.line2)}::text[],
                  ${addresses.map((a) => a.district)}::text[], ${addresses.map((a) => a.city)}::text[], ${addresses.map((a) => a.region)}::text[],
                  ${addresses.map((a) => a.postalCode)}::text[], ${addresses.map((a) => a.country)}::text[], ${addresses.map((a) => a.isDefault)}::boolean[],
                  ${addresses.map((a) => a.createdAt)}::float8[])
        as a(shopper_id, label, full_name, phone, line1, line2, district, city, region, postal_code, country, is_default, created_at)
    )`;
}
