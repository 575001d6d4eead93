import { share, type LineRecord, type OrderRecord, type Records } from './report-fixture.js';

/**
 * Every Insights figure recomputed from the raw records, in TypeScript, from the written definitions
 * (contract section 8, the measures' descriptions, REPORT_COLUMNS), not from the service's SQL:
 *
 * - A customer is an email address, compared without case. An order is its customer's first when no
 *   order of that address was placed before it; "new"/"returning" is that property of the order.
 * - Goods are valued without tax: a line's value is its total minus its tax when prices include tax,
 *   its total otherwise. Gross sales are on the order's local day.
 * - A return (refund with reason 'return') takes back, on the refund's local day, the value of the
 *   returned units: the line's value × units / quantity, rounded half up cumulatively over the line's
 *   refunds (so a line returned in parts gives back exactly its value); the rest of what the refund
 *   line paid back is tax. The refunded shipping charge is split the same way into shipping (its
 *   share of the shipping value) and tax.
 * - A cancellation counts, on the day it was cancelled, as the whole order returned: goods, shipping
 *   and taxes (a cancellation's refund row is money only, never a second return).
 * - Averages of nothing (no orders, nothing shipped) and ratios over zero are null.
 */

export const NONE = '00000000-0000-0000-0000-000000000000';
export type Grain = 'hour' | 'day' | 'week' | 'month';
export type Value = number | null;

/** Local calendar days [from, to], and with `hour` one local hour of the single day. */
export interface Window {
  from: string;
  to: string;
  hour?: string;
}

/** A condition on a dimension's value (filters, and a row's own values). */
export type Conds = Record<string, (value: string) => boolean>;

type Dims = Record<string, string>;

interface Fact {
  at: Date;
  dims: Dims;
  n: Record<string, number>;
  /** the order a placement fact is, for "orders that contained it" */
  orderId?: string;
}

const LINE_DIMENSIONS = ['product', 'variant', 'category', 'brand'];

// --- calendar -----------------------------------------------------------------------------------

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The first day of the period holding `day`: weeks start on Sunday (the default of the settings). */
export function periodStartOf(day: string, grain: Exclude<Grain, 'hour'>): string {
  if (grain === 'day') return day;
  if (grain === 'month') return `${day.slice(0, 7)}-01`;
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -weekday);
}

/** Every period of a range: its label and the part of it inside the range. */
export function periodsOf(range: Window, grain: Grain): { period: string; window: Window }[] {
  const periods: { period: string; window: Window }[] = [];
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) {
    if (grain === 'hour') {
      for (let h = 0; h < 24; h++) {
        const hour = String(h).padStart(2, '0');
        periods.push({ period: `${day}T${hour}:00`, window: { from: day, to: day, hour } });
      }
      continue;
    }
    const start = periodStartOf(day, grain);
    const last = periods.at(-1);
    if (last?.period === start) last.window.to = day;
    else periods.push({ period: start, window: { from: day, to: day } });
  }
  return periods;
}

// --- the reference ----------------------------------------------------------------------------

export class Reference {
  private readonly format: Intl.DateTimeFormat;
  readonly sales: Fact[] = [];
  readonly lines: Fact[] = [];
  readonly placements: Fact[] = [];
  readonly fulfilment: Fact[] = [];
  readonly payments: Fact[] = [];
  readonly searches: Fact[] = [];
  readonly sessions: Fact[] = [];
  private readonly firstOrder = new Map<string, OrderRecord>();

  constructor(readonly records: Records) {
    this.format = new Intl.DateTimeFormat('en-CA', {
      timeZone: records.timezone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
    });
    const chronological = [...records.orders].sort((a, b) => a.placedAt.getTime() - b.placedAt.getTime() || (a.id < b.id ? -1 : 1));
    for (const order of chronological) if (!this.firstOrder.has(this.customerOf(order))) this.firstOrder.set(this.customerOf(order), order);
    this.buildSales();
    this.buildOperations();
  }

  /** The local day and hour of an instant. */
  localOf(date: Date): { day: string; hour: string } {
    const parts = Object.fromEntries(this.format.formatToParts(date).map((part) => [part.type, part.value]));
    return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour };
  }

  localDay(date: Date): string {
    return this.localOf(date).day;
  }

  inWindow(date: Date, window: Window): boolean {
    const { day, hour } = this.localOf(date);
    return day >= window.from && day <= window.to && (window.hour === undefined || window.hour === hour);
  }

  customerOf(order: OrderRecord): string {
    return order.email.toLowerCase();
  }

  isFirstOrder(order: OrderRecord): boolean {
    return this.firstOrder.get(this.customerOf(order))!.id === order.id;
  }

  // --- money of an order, from the definitions ---

  lineValue(order: OrderRecord, line: LineRecord): number {
    return order.pricesIncludeTax ? line.lineTotal - line.taxAmount : line.lineTotal;
  }

  gross(order: OrderRecord): number {
    return order.lines.reduce((sum, line) => sum + this.lineValue(order, line), 0);
  }

  discounts(order: OrderRecord): number {
    return order.pricesIncludeTax
      ? order.discountTotal - share(order.discountTotal, order.taxRateBps, 10_000 + order.taxRateBps)
      : order.discountTotal;
  }

  shippingTax(order: OrderRecord): number {
    return order.taxTotal - order.lines.reduce((sum, line) => sum + line.taxAmount, 0);
  }

  shippingValue(order: OrderRecord): number {
    return order.pricesIncludeTax ? order.shippingTotal - this.shippingTax(order) : order.shippingTotal;
  }

  shippingPaid(order: OrderRecord): number {
    return order.pricesIncludeTax ? order.shippingTotal : order.shippingTotal + this.shippingTax(order);
  }

  orderDims(order: OrderRecord): Dims {
    return {
      payment_method: order.paymentMethod,
      fulfilment_type: order.fulfilmentType,
      shipping_method: order.shippingMethodCode ?? '',
      customer_type: this.isFirstOrder(order) ? 'new' : 'returning',
      customer_kind: order.placedAsGuest ? 'guest' : 'registered',
      locale: order.locale,
      tax_rate: String(order.taxRateBps),
      customer: this.records.customerIds.get(this.customerOf(order)) ?? `?${this.customerOf(order)}`,
      email: this.customerOf(order),
    };
  }

  lineDims(order: OrderRecord, line: LineRecord): Dims {
    return {
      ...this.orderDims(order),
      product: line.productId ?? NONE,
      variant: line.variantId ?? NONE,
      category: line.categoryId ?? NONE,
      brand: line.brandId ?? NONE,
    };
  }

  private buildSales(): void {
    const orders = new Map(this.records.orders.map((order) => [order.id, order]));
    for (const order of this.records.orders) {
      const dims = this.orderDims(order);
      const units = order.lines.reduce((sum, line) => sum + line.quantity, 0);
      const placed = {
        orders: 1,
        gross: this.gross(order),
        discounts: this.discounts(order),
        shipping: this.shippingValue(order),
        taxesCollected: order.taxTotal,
        unitsSold: units,
      };
      this.sales.push({ at: order.placedAt, dims, n: placed, orderId: order.id });
      this.placements.push({ at: order.placedAt, dims, n: { orders: 1 }, orderId: order.id });
      for (const line of order.lines) {
        this.lines.push({
          at: order.placedAt,
          dims: this.lineDims(order, line),
          n: { placed: 1, gross: this.lineValue(order, line), unitsSold: line.quantity },
          orderId: order.id,
        });
      }
      if (order.cancelledAt) {
        this.sales.push({
          at: order.cancelledAt,
          dims,
          n: {
            returns: this.gross(order) - this.discounts(order),
            shipping: -this.shippingValue(order),
            taxesRefunded: order.taxTotal,
            unitsReturned: units,
            cancelled: 1,
          },
        });
        for (const line of order.lines) {
          this.lines.push({
            at: order.cancelledAt,
            dims: this.lineDims(order, line),
            n: { returns: this.lineValue(order, line), unitsReturned: line.quantity },
          });
        }
      }
    }
    // Returns, line by line in the order they happened.
    const returnedBefore = new Map<string, number>();
    const returns = this.records.refunds
      .filter((refund) => refund.reason === 'return')
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    for (const refund of returns) {
      const order = orders.get(refund.orderId)!;
      const dims = this.orderDims(order);
      for (const refunded of refund.lines) {
        const line = order.lines.find((candidate) => candidate.id === refunded.orderLineId)!;
        const before = returnedBefore.get(line.id) ?? 0;
        const worth = this.lineValue(order, line);
        const value = share(worth, before + refunded.quantity, line.quantity) - share(worth, before, line.quantity);
        returnedBefore.set(line.id, before + refunded.quantity);
        const n = { returns: value, taxesRefunded: refunded.amount - value, unitsReturned: refunded.quantity };
        this.sales.push({ at: refund.createdAt, dims, n });
        this.lines.push({
          at: refund.createdAt,
          dims: this.lineDims(order, line),
          n: { returns: value, unitsReturned: refunded.quantity },
        });
      }
      if (refund.shippingAmount > 0) {
        const value = share(this.shippingValue(order), refund.shippingAmount, this.shippingPaid(order));
        this.sales.push({ at: refund.createdAt, dims, n: { shipping: -value, taxesRefunded: refund.shippingAmount - value } });
      }
    }
  }

  private buildOperations(): void {
    const seconds = (later: Date, earlier: Date) => Math.round((later.getTime() - earlier.getTime()) / 1000);
    for (const order of this.records.orders) {
      // a step carries everything its order is split by
      const dims = this.orderDims(order);
      if (order.shippedAt)
        this.fulfilment.push({ at: order.shippedAt, dims, n: { shipped: 1, shipSeconds: seconds(order.shippedAt, order.placedAt) } });
      if (order.readyAt)
        this.fulfilment.push({ at: order.readyAt, dims, n: { ready: 1, readySeconds: seconds(order.readyAt, order.placedAt) } });
      if (order.deliveredAt) {
        this.fulfilment.push({
          at: order.deliveredAt,
          dims,
          n: { delivered: 1, deliverSeconds: seconds(order.deliveredAt, order.placedAt) },
        });
      }
      if (!order.cancelledAt) {
        const fulfilled = order.fulfilmentType === 'delivery' ? order.deliveredAt : order.readyAt;
        const late = fulfilled !== null && fulfilled.getTime() > order.promisedBy.getTime() ? 1 : 0;
        const kept = fulfilled !== null && fulfilled.getTime() <= order.promisedBy.getTime() ? 1 : 0;
        this.fulfilment.push({ at: order.promisedBy, dims, n: { promised: 1, late, kept } });
      }
      // an order's payments carry everything the order is split by
      const method = this.orderDims(order);
      if (order.paymentMethod === 'card')
        this.payments.push({ at: order.placedAt, dims: method, n: { authorisedCount: 1, authorisedAmount: order.total } });
      if (order.paidAt) this.payments.push({ at: order.paidAt, dims: method, n: { capturedCount: 1, capturedAmount: order.total } });
      if (order.cancelledAt && !order.paidAt)
        this.payments.push({ at: order.cancelledAt, dims: method, n: { voidedCount: 1, voidedAmount: order.total } });
    }
    const orders = new Map(this.records.orders.map((order) => [order.id, order]));
    for (const refund of this.records.refunds) {
      this.payments.push({
        at: refund.createdAt,
        dims: this.orderDims(orders.get(refund.orderId)!),
        n: { refundedCount: 1, refundedAmount: refund.amount },
      });
    }
    for (const declined of this.records.declined) {
      this.payments.push({
        at: declined.createdAt,
        dims: { payment_method: declined.method },
        n: { failedCount: 1, failedAmount: declined.amount },
      });
    }
    // Searches: followed by an add-to-cart (an order) when the session added (ordered) within 30 minutes after.
    const followed = (sessionId: string | null, at: Date, kind: string) =>
      sessionId !== null &&
      this.records.events.some(
        (event) =>
          event.sessionId === sessionId &&
          event.kind === kind &&
          event.occurredAt.getTime() > at.getTime() &&
          event.occurredAt.getTime() - at.getTime() <= 30 * 60_000,
      );
    for (const search of this.records.searches) {
      this.searches.push({
        at: search.createdAt,
        dims: { query: search.query },
        n: {
          searches: 1,
          zero: search.resultCount === 0 ? 1 : 0,
          add: followed(search.sessionId, search.createdAt, 'cart_line_added') ? 1 : 0,
          order: followed(search.sessionId, search.createdAt, 'order_placed') ? 1 : 0,
        },
      });
    }
    // Sessions: counted once per step reached, in the hour they started.
    const bySession = new Map<string, { kind: string; occurredAt: Date }[]>();
    for (const event of this.records.events) bySession.set(event.sessionId, [...(bySession.get(event.sessionId) ?? []), event]);
    for (const [sessionId, events] of bySession) {
      const kinds = new Set(events.map((event) => event.kind));
      const started =
        this.records.sessionsCreated.get(sessionId) ??
        events.filter((e) => e.kind === 'session_started').sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())[0]?.occurredAt ??
        events.sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())[0].occurredAt;
      this.sessions.push({
        at: started,
        dims: {},
        n: {
          sessions: 1,
          viewed: kinds.has('product_viewed') ? 1 : 0,
          added: kinds.has('cart_line_added') ? 1 : 0,
          checkout: kinds.has('checkout_quoted') ? 1 : 0,
          ordered: kinds.has('order_placed') ? 1 : 0,
        },
      });
    }
  }

  // --- measures ---

  private select(facts: Fact[], window: Window, conds: Conds): Fact[] {
    return facts.filter((fact) => this.inWindow(fact.at, window) && Object.entries(conds).every(([name, test]) => test(fact.dims[name])));
  }

  private sum(facts: Fact[], field: string): number {
    return facts.reduce((total, fact) => total + (fact.n[field] ?? 0), 0);
  }

  /** The facts a measure is made of, and whether a product dimension makes it a product-level figure. */
  familyOf(measure: string, used: Iterable<string>): Fact[] {
    const byLine = [...used].some((name) => LINE_DIMENSIONS.includes(name));
    const family = FAMILIES[measure];
    if (!family) throw new Error(`no reference for measure ${measure}`);
    if (family === 'sales') return byLine ? this.lines : this.sales;
    if (family === 'customers') return this.placements;
    return this[family];
  }

  /** A measure over a window, with the conditions (filters and a row's own dimension values). */
  value(measure: string, window: Window, conds: Conds = {}): Value {
    const facts = this.select(this.familyOf(measure, Object.keys(conds)), window, conds);
    const byLine = Object.keys(conds).some((name) => LINE_DIMENSIONS.includes(name));
    const s = (field: string) => this.sum(facts, field);
    const ratio = (a: number, b: number): Value => (b === 0 ? null : a / b);
    const average = (a: number, b: number): Value => (b === 0 ? null : Math.round(a / b));
    const distinct = (list: Fact[]) => new Set(list.map((fact) => fact.dims.email)).size;
    const orders = () => (byLine ? new Set(facts.filter((fact) => fact.n.placed).map((fact) => fact.orderId)).size : s('orders'));
    switch (measure) {
      case 'orders':
        return orders();
      case 'gross_sales':
        return s('gross');
      case 'discounts':
        return s('discounts');
      case 'returns':
        return s('returns');
      case 'net_sales':
        return s('gross') - s('discounts') - s('returns');
      case 'shipping':
        return s('shipping');
      case 'taxes':
        return s('taxesCollected') - s('taxesRefunded');
      case 'total_sales':
        return s('gross') - s('discounts') - s('returns') + s('shipping') + s('taxesCollected') - s('taxesRefunded');
      case 'taxable_sales':
        return s('gross') - s('discounts') - s('returns') + s('shipping');
      case 'taxes_collected':
        return s('taxesCollected');
      case 'taxes_refunded':
        return s('taxesRefunded');
      case 'average_order_value':
        return average(s('gross') - s('discounts'), orders());
      case 'cancelled_orders':
        return s('cancelled');
      case 'units_sold':
        return s('unitsSold');
      case 'units_returned':
        return s('unitsReturned');
      case 'net_units':
        return s('unitsSold') - s('unitsReturned');
      case 'return_rate':
        return ratio(s('unitsReturned'), s('unitsSold'));
      case 'customers':
        return distinct(facts);
      case 'new_customers':
        return distinct(facts.filter((fact) => fact.dims.customer_type === 'new'));
      case 'returning_customers':
        return distinct(facts.filter((fact) => fact.dims.customer_type === 'returning'));
      case 'returning_customer_rate':
        return ratio(distinct(facts.filter((fact) => fact.dims.customer_type === 'returning')), distinct(facts));
      case 'shipped_orders':
        return s('shipped');
      case 'average_time_to_ship':
        return average(s('shipSeconds'), s('shipped'));
      case 'delivered_orders':
        return s('delivered');
      case 'average_time_to_deliver':
        return average(s('deliverSeconds'), s('delivered'));
      case 'ready_orders':
        return s('ready');
      case 'average_time_to_ready':
        return average(s('readySeconds'), s('ready'));
      case 'promised_orders':
        return s('promised');
      case 'late_orders':
        return s('late');
      case 'on_time_rate':
        // of the promises fulfilled, the share fulfilled in time; orders still open count neither way
        return s('kept') + s('late') === 0 ? null : s('kept') / (s('kept') + s('late'));
      case 'sessions':
        return s('sessions');
      case 'sessions_with_product_view':
        return s('viewed');
      case 'sessions_with_cart_addition':
        return s('added');
      case 'sessions_reaching_checkout':
        return s('checkout');
      case 'sessions_with_order':
        return s('ordered');
      case 'conversion_rate':
        return ratio(s('ordered'), s('sessions'));
      case 'searches':
        return s('searches');
      case 'zero_result_searches':
        return s('zero');
      case 'zero_result_rate':
        return ratio(s('zero'), s('searches'));
      case 'searches_followed_by_add':
        return s('add');
      case 'searches_followed_by_order':
        return s('order');
      case 'search_add_rate':
        return ratio(s('add'), s('searches'));
      default: {
        const payment = /^(authorised|captured|refunded|voided|failed)_(payments|amount)$/.exec(measure);
        if (payment) return s(`${payment[1]}${payment[2] === 'payments' ? 'Count' : 'Amount'}`);
        throw new Error(`no reference for measure ${measure}`);
      }
    }
  }

  /**
   * A table: the measures split by dimensions (a time grain among them names its period) over a
   * range; a row for every combination of values that has any record of the measures in the range.
   */
  rows(measures: string[], dimensions: string[], range: Window, conds: Conds = {}): Record<string, Value | string>[] {
    const grain = dimensions.find((name): name is Grain => ['hour', 'day', 'week', 'month'].includes(name));
    const split = dimensions.filter((name) => name !== grain);
    const used = [...split, ...Object.keys(conds)];
    const keys = new Map<string, Dims>();
    for (const measure of measures) {
      for (const fact of this.select(this.familyOf(measure, used), range, conds)) {
        // a fact without a value of a split dimension (a card declined with no order: no language) is in no row of it
        if (split.some((name) => fact.dims[name] === undefined)) continue;
        const values: Dims = Object.fromEntries(split.map((name) => [name, fact.dims[name]]));
        if (grain) values[grain] = this.periodLabel(fact.at, grain);
        keys.set(dimensions.map((name) => values[name]).join('\u0000'), values);
      }
    }
    return [...keys.values()].map((values) => {
      const window = grain ? this.clip(values[grain], grain, range) : range;
      const rowConds: Conds = { ...conds };
      for (const name of split) {
        const outer = conds[name];
        rowConds[name] = (value) => value === values[name] && (!outer || outer(value));
      }
      return { ...values, ...Object.fromEntries(measures.map((measure) => [measure, this.value(measure, window, rowConds)])) };
    });
  }

  periodLabel(at: Date, grain: Grain): string {
    const { day, hour } = this.localOf(at);
    return grain === 'hour' ? `${day}T${hour}:00` : periodStartOf(day, grain);
  }

  private clip(period: string, grain: Grain, range: Window): Window {
    if (grain === 'hour') return { from: period.slice(0, 10), to: period.slice(0, 10), hour: period.slice(11, 13) };
    const end = grain === 'day' ? period : grain === 'week' ? addDays(period, 6) : addDays(`${addMonth(period)}`, -1);
    return { from: period > range.from ? period : range.from, to: end < range.to ? end : range.to };
  }

  /** One point per period of the range, every measure at each. */
  series(measures: string[], range: Window, grain: Grain, conds: Conds = {}): Record<string, Value | string>[] {
    return periodsOf(range, grain).map(({ period, window }) => ({
      period,
      ...Object.fromEntries(measures.map((measure) => [measure, this.value(measure, window, conds)])),
    }));
  }

  // --- reports shaped by themselves ---

  /**
   * Cohorts: customers by the month of their first order ever, for the cohorts whose month is in the
   * range; per month since, the cohort's customers who ordered, their orders and their net sales
   * (returns in the month of the refund), counting only what happened inside the range.
   */
  cohorts(range: Window): Record<string, Value | string>[] {
    const cohortOf = (email: string) => this.localDay(this.firstOrder.get(email)!.placedAt).slice(0, 7);
    const firstMonth = range.from.slice(0, 7);
    const lastMonth = range.to.slice(0, 7);
    const members = new Map<string, Set<string>>();
    for (const email of this.firstOrder.keys()) {
      const cohort = cohortOf(email);
      if (cohort >= firstMonth && cohort <= lastMonth) members.set(cohort, new Set([...(members.get(cohort) ?? []), email]));
    }
    const rows: Record<string, Value | string>[] = [];
    for (const cohort of [...members.keys()].sort()) {
      for (let since = 0; addMonths(cohort, since) <= lastMonth; since++) {
        const month = addMonths(cohort, since);
        const window = { from: maxOf(`${month}-01`, range.from), to: minOf(addDays(addMonth(`${month}-01`), -1), range.to) };
        const ofCohort: Conds = { email: (email) => members.get(cohort)!.has(email) };
        const active = this.value('customers', window, ofCohort) as number;
        rows.push({
          cohort: `${cohort}-01`,
          months_since: since,
          cohort_customers: active,
          retention_rate: active / members.get(cohort)!.size,
          cohort_orders: this.value('orders', window, ofCohort),
          cohort_net_sales: this.value('net_sales', window, ofCohort),
        });
      }
    }
    return rows;
  }

  /** Active products with stock that sold nothing in the range; the last day each sold, and the days since (or since created). */
  notSelling(
    range: Window,
    today: string,
  ): { product: string; stock: number; last_sold_on: string | null; days_since_last_sale: number | null }[] {
    return this.records.products
      .filter((product) => product.status === 'active' && product.stock > 0)
      .filter((product) => !this.lines.some((fact) => fact.n.placed && fact.dims.product === product.id && this.inWindow(fact.at, range)))
      .map((product) => {
        const days = this.lines.filter((fact) => fact.n.placed && fact.dims.product === product.id).map((fact) => this.localDay(fact.at));
        const last = days.length > 0 ? days.sort().at(-1)! : null;
        return {
          product: product.id,
          stock: product.stock,
          last_sold_on: last,
          days_since_last_sale: last === null ? null : daysBetween(last, today),
        };
      });
  }

  /** Orders promised within the range, delivered (ready for pickup) after it or still open past it at `now`. */
  lateOrders(range: Window, now: Date) {
    return this.records.orders
      .filter((order) => this.inWindow(order.promisedBy, range))
      .flatMap((order): { order: OrderRecord; fulfilled: Date | null; open: boolean }[] => {
        const fulfilled = order.fulfilmentType === 'delivery' ? order.deliveredAt : order.readyAt;
        if (fulfilled && fulfilled.getTime() > order.promisedBy.getTime()) return [{ order, fulfilled, open: false }];
        if (!fulfilled && order.status === 'open' && order.promisedBy.getTime() < now.getTime())
          return [{ order, fulfilled: null, open: true }];
        return [];
      })
      .map(({ order, fulfilled, open }) => ({
        order: order.id,
        placed_at: order.placedAt.toISOString(),
        promised_by: order.promisedBy.toISOString(),
        fulfilled_at: fulfilled ? fulfilled.toISOString() : null,
        status: order.fulfilmentStatus,
        open,
        /** seconds late, until fulfilment (or `now` while open) */
        lateBy: (at: Date) => Math.round(((fulfilled ?? at).getTime() - order.promisedBy.getTime()) / 1000),
      }));
  }
}

/** Which facts each measure is made of. */
const FAMILIES: Record<string, 'sales' | 'customers' | 'fulfilment' | 'payments' | 'searches' | 'sessions'> = {
  ...Object.fromEntries(
    [
      'orders',
      'gross_sales',
      'discounts',
      'returns',
      'net_sales',
      'shipping',
      'taxes',
      'total_sales',
      'taxable_sales',
      'taxes_collected',
      'taxes_refunded',
      'average_order_value',
      'cancelled_orders',
      'units_sold',
      'units_returned',
      'net_units',
      'return_rate',
    ].map((name) => [name, 'sales' as const]),
  ),
  ...Object.fromEntries(
    ['customers', 'new_customers', 'returning_customers', 'returning_customer_rate'].map((name) => [name, 'customers' as const]),
  ),
  ...Object.fromEntries(
    [
      'shipped_orders',
      'average_time_to_ship',
      'delivered_orders',
      'average_time_to_deliver',
      'ready_orders',
      'average_time_to_ready',
      'promised_orders',
      'late_orders',
      'on_time_rate',
    ].map((name) => [name, 'fulfilment' as const]),
  ),
  ...Object.fromEntries(
    ['authorised', 'captured', 'refunded', 'voided', 'failed'].flatMap((event) => [
      [`${event}_payments`, 'payments' as const],
      [`${event}_amount`, 'payments' as const],
    ]),
  ),
  ...Object.fromEntries(
    [
      'searches',
      'zero_result_searches',
      'zero_result_rate',
      'searches_followed_by_add',
      'searches_followed_by_order',
      'search_add_rate',
    ].map((name) => [name, 'searches' as const]),
  ),
  ...Object.fromEntries(
    [
      'sessions',
      'sessions_with_product_view',
      'sessions_with_cart_addition',
      'sessions_reaching_checkout',
      'sessions_with_order',
      'conversion_rate',
    ].map((name) => [name, 'sessions' as const]),
  ),
};

/** The first day of the next month, from a `YYYY-MM-DD` first day. */
function addMonth(first: string): string {
  const [year, month] = first.split('-').map(Number);
  return month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
}

/** `YYYY-MM` plus some months. */
function addMonths(month: string, count: number): string {
  const [year, m] = month.split('-').map(Number);
  const index = year * 12 + (m - 1) + count;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

const maxOf = (a: string, b: string) => (a > b ? a : b);
const minOf = (a: string, b: string) => (a < b ? a : b);
