import { EntityManager } from '@mikro-orm/postgresql';
import { Injectable } from '@nestjs/common';
import { sql } from 'kysely';
import type { SessionPrincipal } from '../../auth/principal.js';
import { SessionShoppers, type SessionOwner } from '../../auth/session-shoppers.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { decodeCursor, UTC_MICROS_PATTERN, UUID_PATTERN } from '../../common/pagination/cursor.js';
import { DEFAULT_PAGE_SIZE, type ListQueryDto } from '../../common/pagination/list-query.dto.js';
import { RenderedJson, renderPage } from '../../infra/http/rendered-json.js';

const SUMMARY = sql`json_build_object(
  'id', o.id, 'number', o.number::text, 'status', o.status,
  'paymentMethod', o.payment_method, 'paymentStatus', o.payment_status,
  'fulfilmentType', o.fulfilment_type, 'fulfilmentStatus', o.fulfilment_status,
  'itemCount', o.item_count, 'total', o.total, 'currency', o.currency,
  'placedAt', iso_utc(o.placed_at), 'promisedBy', iso_utc(o.promised_by))`;

/** The whole order: lines, totals, states and their timestamps, fulfilment, payment and refunds. */
const DETAIL = sql`(${SUMMARY}::jsonb || jsonb_build_object(
  'email', o.email, 'locale', o.locale,
  'subtotal', o.subtotal, 'shipping', o.shipping_total, 'tax', o.tax_total, 'discount', o.discount_total,
  'refunded', o.refunded_total, 'taxIncluded', o.prices_include_tax, 'test', o.test,
  'paidAt', iso_utc(o.paid_at), 'shippedAt', iso_utc(o.shipped_at), 'readyAt', iso_utc(o.ready_at),
  'deliveredAt', iso_utc(o.delivered_at), 'cancelledAt', iso_utc(o.cancelled_at), 'refundedAt', iso_utc(o.refunded_at),
  'fulfilment', jsonb_build_object(
    'type', o.fulfilment_type, 'status', o.fulfilment_status,
    'shippingMethod', case when o.shipping_method_code is null then null else jsonb_build_object(
      'code', o.shipping_method_code, 'name', jsonb_build_object('en', sm.name_en, 'ar', sm.name_ar)) end,
    'address', o.shipping_address,
    'pickupLocation', case when pl.id is null then null else jsonb_build_object(
      'id', pl.id, 'code', pl.code, 'name', jsonb_build_object('en', pl.name_en, 'ar', pl.name_ar),
      'address', jsonb_build_object('en', pl.address_en, 'ar', pl.address_ar), 'city', pl.city) end),
  'payment', (select jsonb_build_object('method', o.payment_method, 'status', o.payment_status, 'amount', pay.amount,
                 'currency', pay.currency, 'provider', pay.provider)
              from payments pay where pay.order_id = o.id order by pay.created_at limit 1),
  'lines', (select coalesce(jsonb_agg(jsonb_build_object(
              'id', ol.id, 'variantId', ol.variant_id, 'productId', ol.product_id, 'sku', ol.sku,
              'name', jsonb_build_object('en', ol.product_name_en, 'ar', ol.product_name_ar), 'options', ol.options,
              'quantity', ol.quantity, 'unitPrice', ol.unit_price, 'lineTotal', ol.line_total, 'tax', ol.tax_amount,
              'returnedQuantity', ol.returned_quantity) order by ol.position), '[]'::jsonb)
            from order_lines ol where ol.order_id = o.id),
  'refunds', (select coalesce(jsonb_agg(jsonb_build_object(
                'reason', r.reason, 'amount', r.amount, 'shipping', r.shipping_amount, 'createdAt', iso_utc(r.created_at),
                'lines', (select coalesce(jsonb_agg(jsonb_build_object('lineId', rl.order_line_id, 'quantity', rl.quantity, 'amount', rl.amount)
                                            order by ol.position), '[]'::jsonb)
                          from refund_lines rl join order_lines ol on ol.id = rl.order_line_id where rl.refund_id = r.id))
              order by r.created_at, r.id), '[]'::jsonb)
            from refunds r where r.order_id = o.id)
))`;

const DETAIL_JOINS = sql`
  left join shipping_methods sm on sm.store_id = o.store_id and sm.code = o.shipping_method_code
  left join pickup_locations pl on pl.id = o.pickup_location_id`;

/**
 * The orders a session may read: the signed-in shopper's (including guest orders adopted at sign-in),
 * else the session's own guest orders. Bounded by the store: another store's order is not found.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly em: EntityManager,
    private readonly shoppers: SessionShoppers,
  ) {}

  async list(principal: SessionPrincipal, query: ListQueryDto): Promise<RenderedJson> {
    const owner = await this.shoppers.ownerOf(principal);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor<[string, string]>(query.cursor, [UTC_MICROS_PATTERN, UUID_PATTERN]) : undefined;
    const { rows } = await sql<{ doc: string; id: string; sort_at: string }>`
      select ${SUMMARY}::text as doc, o.id, iso_utc_micros(o.placed_at) as sort_at
      from orders o
      where ${visibleTo(owner)}
      ${after ? sql`and (o.placed_at, o.id) < (${after[0]}::timestamptz, ${after[1]}::uuid)` : sql``}
      order by o.placed_at desc, o.id desc
      limit ${limit + 1}`.execute(this.em.getKysely());
    return renderPage(rows, limit, (row) => [row.sort_at, row.id]);
  }

  async get(principal: SessionPrincipal, orderId: string): Promise<RenderedJson> {
    if (!UUID_PATTERN.test(orderId)) throw new ApiError('NOT_FOUND');
    const owner = await this.shoppers.ownerOf(principal);
    const { rows } = await sql<{ doc: string }>`
      select ${DETAIL}::text as doc from orders o ${DETAIL_JOINS}
      where o.id = ${orderId} and ${visibleTo(owner)}`.execute(this.em.getKysely());
    if (!rows[0]) throw new ApiError('NOT_FOUND');
    return RenderedJson.fromText(rows[0].doc);
  }

  /** One order's full document, for the answer to placing it (the caller has established ownership). */
  async detail(em: EntityManager, storeId: string, orderId: string): Promise<Record<string, unknown>> {
    const { rows } = await sql<{ doc: Record<string, unknown> }>`
      select ${DETAIL} as doc from orders o ${DETAIL_JOINS}
      where o.id = ${orderId} and o.store_id = ${storeId}`.execute(em.getKysely());
    if (!rows[0]) throw new Error(`order ${orderId} not found in store ${storeId}`);
    return rows[0].doc;
  }
}

function visibleTo(owner: SessionOwner) {
  return owner.shopperId
    ? sql`o.store_id = ${owner.storeId} and o.shopper_id = ${owner.shopperId}`
    : sql`o.store_id = ${owner.storeId} and o.session_id = ${owner.sessionId} and o.shopper_id is null`;
}
