import { KeysetExport } from '../../infra/database/record-export.js';

/**
 * The data hub's orders export, in the order of their numbers. The store's test orders are left out:
 * a storefront's staging or QA runs placed them, and the systems orders go to would count them as sales.
 */
export const ordersExport = new KeysetExport(`
    select o.number, iso_utc(o.placed_at) as placed_at, o.email, o.status, o.payment_status, o.fulfilment_status, o.currency,
      o.item_count, o.subtotal, o.shipping_total, o.tax_total, o.total, o.refunded_total
    from orders o
    where o.store_id = $1 and not o.test and ($2::bigint is null or o.number > $2::bigint) order by o.number limit $3`);
