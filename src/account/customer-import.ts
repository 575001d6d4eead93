import { KeyedImport } from '../infra/database/record-import.js';

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
    sets: { first_name: 'first_name', last_name: 'last_name', phone: 'phone', locale: 'locale', marketing_opt_in: 'marketing_opt_in' },
    touch: 'updated_at = now()',
    creates: {
      email: 's.key',
      first_name: "coalesce(s.first_name, '')",
      last_name: "coalesce(s.last_name, '')",
      phone: 's.phone',
      locale: "coalesce(s.locale, 'ar')",
      marketing_opt_in: 'coalesce(s.marketing_opt_in, false)',
    },
    noun: { en: 'customer', ar: 'عميل بالبريد' },
  },
  { first_name: 'text', last_name: 'text', phone: 'text', locale: 'text', marketing_opt_in: 'boolean' },
);
