/** Decimal places of a currency's major unit (SAR 2, KWD 3, JPY 0), as ISO 4217 and Intl know them. */
export function currencyDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * Minor units as an exact decimal of the major unit (12345 SAR → "123.45", -5 → "-0.05", KWD 3
 * digits), by integer arithmetic: no binary fraction ever rounds a halala away.
 */
export function decimalAmount(minorUnits: number, digits: number): string {
  if (digits === 0) return String(minorUnits);
  const sign = minorUnits < 0 ? '-' : '';
  const padded = String(Math.abs(minorUnits)).padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
