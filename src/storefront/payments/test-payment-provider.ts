import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AuthorizeRequest, AuthorizeResult, PaymentProvider } from './payment-provider.js';

/**
 * Test tokens of the `test` provider (PAYMENT_PROVIDER=test, the default):
 * - `tok_visa`, `tok_mastercard`, `tok_mada`: approved;
 * - `tok_chargeDeclined`: declined (`card_declined`);
 * - `tok_insufficientFunds`: declined (`insufficient_funds`);
 * - any other token: declined (`invalid_token`).
 * No money moves and no network is used; references are `test_auth_<uuid>`.
 */
export const TEST_CARD_TOKENS = {
  tok_visa: null,
  tok_mastercard: null,
  tok_mada: null,
  tok_chargeDeclined: 'card_declined',
  tok_insufficientFunds: 'insufficient_funds',
} as const satisfies Record<string, string | null>;

@Injectable()
export class TestPaymentProvider implements PaymentProvider {
  readonly name = 'test';

  async authorize(request: AuthorizeRequest): Promise<AuthorizeResult> {
    const outcome = (TEST_CARD_TOKENS as Record<string, string | null>)[request.token];
    if (outcome === undefined) return { approved: false, reason: 'invalid_token' };
    if (outcome !== null) return { approved: false, reason: outcome };
    return { approved: true, reference: `test_auth_${randomUUID()}` };
  }

  async capture(): Promise<void> {}

  async void(): Promise<void> {}

  async refund(): Promise<void> {}
}
