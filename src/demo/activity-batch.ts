import type { NewAddress, NewShopper } from '../account/shopper-writer.js';
import type { HistorySession } from '../auth/session-writer.js';
import type { NewOrder, NewOrderLine, NewRefund, NewRefundLine } from '../storefront/orders/order-writer.js';
import type { NewPayment } from '../storefront/payments/payments.service.js';
import type { SearchRow, SessionEvent } from './sessions.js';

/** The rows of a run of days of generated activity, written together. */
export interface ActivityBatch {
  shoppers: NewShopper[];
  addresses: NewAddress[];
  orders: NewOrder[];
  lines: NewOrderLine[];
  payments: NewPayment[];
  refunds: NewRefund[];
  refundLines: NewRefundLine[];
  /** The sessions that searches and orders name; the others exist only in their events. */
  sessions: HistorySession[];
  events: SessionEvent[];
  searches: SearchRow[];
}

export function emptyBatch(): ActivityBatch {
  return {
    shoppers: [],
    addresses: [],
    orders: [],
    lines: [],
    payments: [],
    refunds: [],
    refundLines: [],
    sessions: [],
    events: [],
    searches: [],
  };
}
