/** The storefront scopes of interface part 5; nothing else can be requested or declared. */
export const SCOPES = [
  'catalogue:read',
  'search:read',
  'cart:read',
  'cart:write',
  'checkout:write',
  'account:read',
  'account:write',
  'orders:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
