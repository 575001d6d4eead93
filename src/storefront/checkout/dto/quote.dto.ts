/** `POST /v1/checkout/quote` takes no fields: it prices the session's cart as it is. */
export class QuoteRequestDto {}
