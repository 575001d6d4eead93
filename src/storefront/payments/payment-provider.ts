/** Injection token of the configured `PaymentProvider` (config PAYMENT_PROVIDER). */
export const PAYMENT_PROVIDER = Symbol('PaymentProvider');

export interface AuthorizeRequest {
  /** Opaque card token from the provider's client-side library; the service never sees card numbers. */
  token: string;
  amount: number;
  currency: string;
  /** The same key for the same attempt, so a provider can deduplicate retried calls. */
  idempotencyKey: string;
}

export type AuthorizeResult = { approved: true; reference: string } | { approved: false; reason: string };

/**
 * A card payment gateway. Authorisation reserves the amount on the card; capture takes it; void
 * releases an authorisation that was not captured; refund returns captured money (partially or whole).
 */
export interface PaymentProvider {
  readonly name: string;
  authorize(request: AuthorizeRequest): Promise<AuthorizeResult>;
  capture(reference: string, amount: number): Promise<void>;
  void(reference: string): Promise<void>;
  refund(reference: string, amount: number): Promise<void>;
}
