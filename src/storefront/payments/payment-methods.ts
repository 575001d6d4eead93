/** How a shopper pays: a card through the PaymentProvider, or cash when the order is handed over. */
export const PAYMENT_METHODS = ['cash_on_delivery', 'card'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
