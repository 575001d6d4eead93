const NEEDS_QUOTES = /[",\r\n]/;

/** A CSV field: quoted when it holds a comma, a quote or a line break, its quotes doubled (RFC 4180). */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
