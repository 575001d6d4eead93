import { Connection } from './data-hub/entities/connection.entity.js';
import { Flow } from './data-hub/entities/flow.entity.js';
import { Run, RunRow } from './data-hub/entities/run.entity.js';
import { Mapping, MappingVersion } from './data-hub/entities/mapping.entity.js';
import { Address } from './account/entities/address.entity.js';
import { OneTimeCode } from './account/entities/one-time-code.entity.js';
import { Shopper } from './account/entities/shopper.entity.js';
import { SignInFailure } from './account/entities/sign-in-failure.entity.js';
import { RefreshToken } from './auth/entities/refresh-token.entity.js';
import { Session } from './auth/entities/session.entity.js';
import { SigningKey } from './auth/entities/signing-key.entity.js';
import { StaffMember } from './auth/entities/staff-member.entity.js';
import { StaffRefreshToken } from './auth/entities/staff-refresh-token.entity.js';
import { StaffSession } from './auth/entities/staff-session.entity.js';
import { StaffSignInFailure } from './auth/entities/staff-sign-in-failure.entity.js';
import { SupportSession } from './auth/entities/support-session.entity.js';
import { Brand } from './storefront/catalogue/entities/brand.entity.js';
import { Category } from './storefront/catalogue/entities/category.entity.js';
import { ProductVariant } from './storefront/catalogue/entities/product-variant.entity.js';
import { Product } from './storefront/catalogue/entities/product.entity.js';
import { ApiKey } from './stores/entities/api-key.entity.js';
import { OutboxMessage } from './notifications/outbox-message.entity.js';
import { Store } from './stores/entities/store.entity.js';
import { CartItem } from './storefront/cart/entities/cart-item.entity.js';
import { Cart } from './storefront/cart/entities/cart.entity.js';
import { PickupLocation } from './storefront/checkout/entities/pickup-location.entity.js';
import { ShippingMethod } from './storefront/checkout/entities/shipping-method.entity.js';
import { IdempotencyClaim } from './infra/idempotency/idempotency-claim.entity.js';
import { OrderLine } from './storefront/orders/entities/order-line.entity.js';
import { Order } from './storefront/orders/entities/order.entity.js';
import { Payment } from './storefront/payments/entities/payment.entity.js';
import { RefundLine } from './storefront/orders/entities/refund-line.entity.js';
import { Refund } from './storefront/orders/entities/refund.entity.js';
import { ProductSearchPending } from './storefront/search/entities/product-search-pending.entity.js';
import { ProductSearch } from './storefront/search/entities/product-search.entity.js';
import { ProductTerms } from './storefront/search/entities/product-terms.entity.js';
import { SearchRecord } from './storefront/search/entities/search-record.entity.js';
import { SearchTerm } from './storefront/search/entities/search-term.entity.js';
import { StorefrontEvent } from './storefront/events/entities/storefront-event.entity.js';
import { PendingChange } from './insights/entities/pending-change.entity.js';
import { ROLLUP_ENTITIES } from './insights/entities/rollups.entity.js';
import { SavedReport } from './insights/entities/saved-report.entity.js';
import { InsightsSettings } from './insights/entities/insights-settings.entity.js';
import { InsightsExport } from './insights/entities/insights-export.entity.js';
import { InsightsSchedule } from './insights/entities/insights-schedule.entity.js';
import { InsightsDelivery } from './insights/entities/insights-delivery.entity.js';

/** Every entity, registered explicitly: no folder scanning at start-up. */
export const ENTITIES = [
  Store,
  ApiKey,
  Session,
  RefreshToken,
  SigningKey,
  Category,
  Brand,
  Product,
  ProductVariant,
  Shopper,
  OneTimeCode,
  SignInFailure,
  Address,
  OutboxMessage,
  ShippingMethod,
  PickupLocation,
  Cart,
  CartItem,
  Order,
  OrderLine,
  Payment,
  Refund,
  RefundLine,
  IdempotencyClaim,
  ProductSearch,
  ProductSearchPending,
  ProductTerms,
  SearchTerm,
  SearchRecord,
  StorefrontEvent,
  PendingChange,
  ...ROLLUP_ENTITIES,
  StaffMember,
  StaffSession,
  StaffRefreshToken,
  SupportSession,
  StaffSignInFailure,
  SavedReport,
  InsightsSettings,
  InsightsExport,
  InsightsSchedule,
  InsightsDelivery,
  Connection,
  Mapping,
  MappingVersion,
  Flow,
  Run,
  RunRow,
];
