import { KeysetExport } from '../infra/database/record-export.js';

/** The data hub's customers export: shoppers in the order of their normalised email, the structure's key. */
export const customersExport = new KeysetExport(`
    select s.email_normalized as email, s.first_name, s.last_name, s.phone, s.locale, s.marketing_opt_in from shoppers s
    where s.store_id = $1 and ($2::text is null or s.email_normalized > $2) order by s.email_normalized limit $3`);
