/** The most of one variant a cart line holds (contract: CART_LIMIT_REACHED). */
export const MAX_LINE_QUANTITY = 999;
/** The most lines a cart holds. */
export const MAX_CART_LINES = 100;
