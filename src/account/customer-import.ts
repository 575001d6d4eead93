import { KeyedImport } from '../infra/database/keyed-import.js';

/**
 * The data hub's customers import: shoppers matched by their normalised email (the structure's email
 * is already trimmed and lower-cased). An imported shopper has no password: they set one by the
 * account's reset.
 */
export const customersImport = new KeyedImport(
  {
    table: 'shoppers',
    key: 'email_normalized',
    keyField: 'email',
    sets: {
      first_name: { column: 'first_name', clearedTo: "''" },
      last_name: { column: 'last_name', clearedTo: "''" },
      phone: { column: 'phone', clearedTo: 'null' },
      locale: 'locale',
      marketing_opt_in: 'marketing_opt_in',
    },
    touch: 'updated_at = now()',
    creates: {
      email: 's.key',
      first_name: "coalesce(s.first_name, '')",
      last_name: "coalesce(s.last_name, '')",
      phone: 's.phone',
      locale: "coalesce(s.locale, 'ar')",
      marketing_opt_in: 'coalesce(s.marketing_opt_in, false)',
    },
    // A shopper the import created and nobody has used since: no password set, no order, cart or search.
    unused: () => `r.password_hash is null and not exists (select 1 from orders o where o.shopper_id = r.id)
      and not exists (select 1 from carts c where c.shopper_id = r.id) and not exists (select 1 from searches q where q.shopper_id = r.id)`,
    noun: { en: 'customer', ar: 'عميل بالبريد' },
  },
  { first_name: 'text', last_name: 'text', phone: 'text', locale: 'text', marketing_opt_in: 'boolean' },
);
