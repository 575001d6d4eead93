/**
 * What an exported file does with text a spreadsheet program would run as a formula (contract section 11):
 * `escape` writes it with a leading apostrophe, for files a person opens; `raw` writes it as it is, for
 * machine feeds that must get the values byte for byte.
 */
export const FORMULA_SAFETY = ['escape', 'raw'] as const;
export type FormulaSafety = (typeof FORMULA_SAFETY)[number];

/**
 * The first characters that make a spreadsheet program read a cell as a formula: OWASP's CSV injection
 * list (`=`, `+`, `-`, `@`, tab, carriage return, line feed). The rule looks at the text only, so text
 * that reads as a number (`-12.5`, `+966501234567`) is escaped too: a number is exported as a number.
 */
const FORMULA_START = /^[=+\-@\t\r\n]/;

/** Text as a spreadsheet cell that shows it and never runs it: a formula's start behind an apostrophe (OWASP). */
export function formulaSafeText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
