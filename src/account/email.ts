/** The identity of an address within a store: trimmed and lower-cased (shoppers.email_normalized). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
