import { randomUUID } from 'node:crypto';
import type { FulfilmentStatus, OrderPaymentStatus, OrderStatus } from '../storefront/orders/order-writer.js';
import type { PaymentMethod } from '../storefront/payments/payment-methods.js';
import { shippingPrice, totalsOf } from '../storefront/pricing/pricing.js';
import type { ActivityBatch } from './activity-batch.js';
import { DAY, HOUR, SECOND, seconds, type DemoDay } from './calendar.js';
import type { DemoAddress, DemoPerson } from './people.js';
import { between, pick, WeightedTable, type Random } from './random.js';
import { recordRefund } from './refunds.js';
import type { SessionOrder } from './sessions.js';
import type { StoreContext, StoreProduct } from './store-context.js';

const PICKUP_WHEN_NEARBY = 0.4;
const EXPRESS_SHARE = 0.22;
const CASH_ON_DELIVERY_SHARE: [start: number, end: number] = [0.48, 0.34];
const CANCELLED = 0.03;
const LATE_BASE = 0.085;
const LATE_IN_RUSH = 0.09;
const RETURN_BASE = 0.048;
const RETURN_PER_FASHION_SHARE = 0.07;
const EXPENSIVE = 100_000;
const LINE_COUNTS = WeightedTable.of([
  [1, 0.52],
  [2, 0.26],
  [3, 0.13],
  [4, 0.06],
  [5, 0.03],
]);
const QUANTITIES = WeightedTable.of([
  [1, 0.84],
  [2, 0.11],
  [3, 0.035],
  [4, 0.01],
  [5, 0.005],
]);
const VARIANT_POSITION_WEIGHTS = [0.4, 0.3, 0.18, 0.12];

const secondsOrNull = (ms: number | null, anchor: number) => (ms === null || ms > anchor ? null : seconds(ms));

interface OrderInput {
  person: DemoPerson;
  sessionId: string;
  shopperId: string | null;
  email: string;
  placedAt: number;
  day: DemoDay;
  progress: number;
  anchor: number;
  products: WeightedTable<StoreProduct>;
}

/** Writes the order into the batch; what its session needs of it. */
export function placeOrder(
  rng: Random,
  context: StoreContext,
  batch: ActivityBatch,
  input: OrderInput,
): Pick<SessionOrder, 'id' | 'productIds' | 'paymentMethod' | 'total'> {
  const { person, placedAt, anchor } = input;
  const address = person.addresses.length > 1 && rng() >= 0.8 ? pick(rng, person.addresses.slice(1)) : person.addresses[0];
  const pickupNearby = context.pickupLocations.filter((location) => location.city === address.city);
  const pickup = pickupNearby.length > 0 && rng() < PICKUP_WHEN_NEARBY ? pick(rng, pickupNearby) : null;
  const method =
    pickup || context.shippingMethods.length === 0
      ? null
      : context.shippingMethods.length > 1 && rng() < EXPRESS_SHARE
        ? pick(rng, context.shippingMethods.slice(1))
        : context.shippingMethods[0];
  const [codStart, codEnd] = CASH_ON_DELIVERY_SHARE;
  const paymentMethod: PaymentMethod = rng() < codStart + (codEnd - codStart) * input.progress ? 'cash_on_delivery' : 'card';

  const chosen: StoreProduct[] = [];
  const lineCount = LINE_COUNTS.draw(rng);
  for (let attempt = 0; chosen.length < lineCount && attempt < lineCount * 4; attempt++) {
    const product = input.products.draw(rng);
    if (!chosen.includes(product)) chosen.push(product);
  }
  const priced = chosen.map((product) => {
    const variant = product.variants[variantPosition(rng, product.variants.length)];
    const quantity = variant.price >= EXPENSIVE ? (rng() < 0.97 ? 1 : 2) : QUANTITIES.draw(rng);
    return { product, variantId: variant.id, unitPrice: variant.price, quantity };
  });
  const lineTotals = priced.map((line) => line.unitPrice * line.quantity);
  const goods = lineTotals.reduce((sum, amount) => sum + amount, 0);
  const totals = totalsOf(lineTotals, method ? shippingPrice(method, goods) : 0, context.tax);

  // The whole life of the order; whatever would happen after the anchor has not happened yet.
  const promiseWindow = pickup ? pickup.preparationHours * HOUR : (method?.maxDays ?? 5) * DAY;
  const promisedBy = placedAt + promiseWindow;
  const late = rng() < LATE_BASE + LATE_IN_RUSH * input.day.rush;
  let shippedAt: number | null = null;
  let readyAt: number | null = null;
  let deliveredAt: number;
  if (pickup) {
    readyAt = late ? promisedBy + between(rng, 0.3 * HOUR, 20 * HOUR) : placedAt + promiseWindow * between(rng, 0.3, 0.97);
    deliveredAt = readyAt + HOUR + rng() ** 2 * 72 * HOUR;
  } else {
    shippedAt = placedAt + Math.min(between(rng, 3 * HOUR, 30 * HOUR), promiseWindow * 0.4);
    if (late) deliveredAt = promisedBy + HOUR + rng() ** 2 * 4 * DAY;
    else {
      const earliest = Math.max(shippedAt + HOUR, placedAt + (method?.minDays ?? 0) * DAY * 0.8);
      const latest = promisedBy - 10 * 60 * SECOND;
      deliveredAt = earliest < latest ? earliest + (latest - earliest) * rng() ** 0.8 : shippedAt + (promisedBy - shippedAt) * 0.5;
    }
  }
  const firstStep = readyAt ?? shippedAt!;
  const cancelledAt = rng() < CANCELLED ? placedAt + (firstStep - placedAt) * between(rng, 0.05, 0.9) : null;
  const cardPaidAt = placedAt + between(rng, 5 * SECOND, 90 * SECOND);
  const fashionShare = priced.filter((line) => line.product.department === 'fashion').length / priced.length;
  const returnAt = rng() < RETURN_BASE + RETURN_PER_FASHION_SHARE * fashionShare ? deliveredAt + between(rng, 2 * DAY, 20 * DAY) : null;

  const id = randomUUID();
  const returned = priced.map(() => 0);
  let status: OrderStatus = 'open';
  let fulfilmentStatus: FulfilmentStatus = 'unfulfilled';
  let paymentStatus: OrderPaymentStatus = paymentMethod === 'card' ? 'paid' : 'pending';
  let paidAt: number | null = paymentMethod === 'card' ? cardPaidAt : null;
  let refundedAt: number | null = null;
  let happenedCancel: number | null = null;

  if (cancelledAt !== null && cancelledAt <= anchor) {
    status = 'cancelled';
    fulfilmentStatus = 'cancelled';
    happenedCancel = cancelledAt;
    shippedAt = null;
    readyAt = null;
    deliveredAt = Infinity;
    if (paymentMethod === 'card') {
      paymentStatus = 'refunded';
      refundedAt = cancelledAt;
    } else paymentStatus = 'voided';
  } else if (cancelledAt === null && deliveredAt <= anchor) {
    status = 'completed';
    fulfilmentStatus = 'delivered';
    paymentStatus = 'paid';
    if (paymentMethod === 'cash_on_delivery') paidAt = deliveredAt;
    if (returnAt !== null && returnAt <= anchor) {
      const full = rng() < 0.3;
      const one = Math.floor(rng() * priced.length);
      priced.forEach((line, i) => {
        if (full) returned[i] = line.quantity;
        else if (i === one) returned[i] = line.quantity === 1 || rng() < 0.6 ? line.quantity : 1 + Math.floor(rng() * (line.quantity - 1));
      });
      const everything = returned.every((quantity, i) => quantity === priced[i].quantity);
      refundedAt = returnAt;
      if (everything) {
        fulfilmentStatus = 'returned';
        paymentStatus = 'refunded';
      } else paymentStatus = 'partially_refunded';
    }
  } else {
    // Not delivered yet (or to be cancelled later): where is it now?
    if (shippedAt !== null && shippedAt <= anchor) fulfilmentStatus = 'shipped';
    if (readyAt !== null && readyAt <= anchor) fulfilmentStatus = 'ready_for_pickup';
  }

  const refundedTotal =
    refundedAt === null
      ? 0
      : recordRefund(batch, context, { id, priced, lineTotals, totals, returned, refundedAt, cancelled: status === 'cancelled' });
  const delivered = status === 'completed' ? deliveredAt : null;
  batch.orders.push({
    id,
    sessionId: input.sessionId,
    shopperId: input.shopperId,
    email: input.email,
    locale: person.locale,
    status,
    paymentMethod,
    paymentStatus,
    fulfilmentType: pickup ? 'pickup' : 'delivery',
    fulfilmentStatus,
    shippingMethodCode: method?.code ?? null,
    shippingAddress: pickup ? null : shippingAddressJson(address),
    pickupLocationId: pickup?.id ?? null,
    itemCount: priced.reduce((sum, line) => sum + line.quantity, 0),
    subtotal: totals.subtotal,
    shippingTotal: totals.shipping,
    taxTotal: totals.tax,
    total: totals.total,
    refundedTotal,
    placedAt: seconds(placedAt),
    promisedAfterSeconds: seconds(promisedBy) - seconds(placedAt),
    paidAt: secondsOrNull(paidAt, anchor),
    shippedAt: secondsOrNull(shippedAt, anchor),
    readyAt: secondsOrNull(readyAt, anchor),
    deliveredAt: delivered === null ? null : seconds(delivered),
    cancelledAt: secondsOrNull(happenedCancel, anchor),
    refundedAt: secondsOrNull(refundedAt, anchor),
  });
  priced.forEach((line, i) =>
    batch.lines.push({
      orderId: id,
      variantId: line.variantId,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      lineTotal: lineTotals[i],
      taxAmount: totals.lineTaxes[i],
      returnedQuantity: returned[i],
      position: i,
    }),
  );

  const provider = paymentMethod === 'card' ? 'demo_card' : 'cash_on_delivery';
  const reference =
    paymentMethod === 'card'
      ? `demo_${Math.floor(rng() * 2 ** 48)
          .toString(16)
          .padStart(12, '0')}`
      : null;
  const captured = paidAt !== null && paidAt <= anchor;
  const paymentStatusRow = captured ? 'captured' : status === 'cancelled' ? 'voided' : 'pending';
  const placed = seconds(placedAt);
  batch.payments.push({
    orderId: id,
    provider,
    method: paymentMethod,
    status: paymentStatusRow,
    amount: totals.total,
    reference,
    createdAt: placed,
    updatedAt: captured ? seconds(paidAt!) : happenedCancel !== null ? seconds(happenedCancel) : placed,
  });
  if (refundedTotal > 0) {
    const at = seconds(refundedAt!);
    batch.payments.push({
      orderId: id,
      provider,
      method: paymentMethod,
      status: 'refunded',
      amount: refundedTotal,
      reference,
      createdAt: at,
      updatedAt: at,
    });
  }
  return { id, productIds: priced.map((line) => line.product.id), paymentMethod, total: totals.total };
}

/** The first variants of a product sell more (the default size or colour). */
function variantPosition(rng: Random, count: number): number {
  if (count === 1) return 0;
  let target = rng() * VARIANT_POSITION_WEIGHTS.slice(0, count).reduce((sum, weight) => sum + weight, 0);
  for (let i = 0; i < count - 1; i++) {
    target -= VARIANT_POSITION_WEIGHTS[i] ?? VARIANT_POSITION_WEIGHTS[VARIANT_POSITION_WEIGHTS.length - 1];
    if (target < 0) return i;
  }
  return count - 1;
}

const addressSnapshots = new WeakMap<DemoAddress, string>();

/** The address as the order keeps it (JSON): a copy, so later edits of the address book do not rewrite history. */
function shippingAddressJson(address: DemoAddress): string {
  let snapshot = addressSnapshots.get(address);
  if (snapshot === undefined) {
    snapshot = JSON.stringify(snapshotOf(address));
    addressSnapshots.set(address, snapshot);
  }
  return snapshot;
}

function snapshotOf(address: DemoAddress) {
  return {
    fullName: address.fullName,
    phone: address.phone,
    line1: address.line1,
    line2: address.line2,
    district: address.district,
    city: address.city,
    region: address.region,
    postalCode: address.postalCode,
    country: address.country,
  };
}
