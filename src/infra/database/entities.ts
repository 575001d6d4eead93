import { RefreshToken } from '../../auth/entities/refresh-token.entity.js';
import { Session } from '../../auth/entities/session.entity.js';
import { SigningKey } from '../../auth/entities/signing-key.entity.js';
import { Brand } from '../../storefront/catalogue/entities/brand.entity.js';
import { Category } from '../../storefront/catalogue/entities/category.entity.js';
import { ProductVariant } from '../../storefront/catalogue/entities/product-variant.entity.js';
import { Product } from '../../storefront/catalogue/entities/product.entity.js';
import { ApiKey } from '../../stores/entities/api-key.entity.js';
import { Store } from '../../stores/entities/store.entity.js';

/** Every entity, registered explicitly: no folder scanning at start-up. */
export const ENTITIES = [Store, ApiKey, Session, RefreshToken, SigningKey, Category, Brand, Product, ProductVariant];
