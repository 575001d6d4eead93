import { DateTime } from 'luxon';
import { RE2JS } from 're2js';
import { SOURCE_FORMATS, type SourceFormat } from '../../infra/tabular/formats.js';

/**
 * File name templates of the data hub (contract section 9, `stock-{yyyy}{MM}{dd}.csv`): literal
 * characters, date and time tokens, and `*` for any run of characters. An import reads the newest
 * file whose name matches; an export names its file by filling the tokens in.
 */
export const TEMPLATE_TOKENS = {
  yyyy: '\\d{4}',
  yy: '\\d{2}',
  MM: '\\d{2}',
  dd: '\\d{2}',
  HH: '\\d{2}',
  mm: '\\d{2}',
  ss: '\\d{2}',
} as const;

export const TEMPLATE_SHAPE = /^(?:[A-Za-z0-9._*-]|\{(?:yyyy|yy|MM|dd|HH|mm|ss)\})+$/;

/** A file name as the data hub accepts it: one path segment of safe characters, never `.` or with `..`. */
export const FILE_NAME_PATTERN = /^(?!\.$)(?!.*\.\.)[A-Za-z0-9._-]{1,200}$/;

/** A template's matcher, on RE2: on JavaScript's engine, `*a*a*a*a*a*a*b` over a long name takes time growing as its length to the power of the `*`s. */
export function templatePattern(template: string): RE2JS {
  if (!TEMPLATE_SHAPE.test(template)) throw new Error(`not a file name template: ${template}`);
  const source = template.replace(/\{(\w+)\}|\*|[.+?^$()[\]\\|-]/g, (part, token: keyof typeof TEMPLATE_TOKENS | undefined) => {
    if (token) return TEMPLATE_TOKENS[token];
    return part === '*' ? '[^/]*' : `\\${part}`;
  });
  return RE2JS.compile(`^${source}$`);
}

/** The format a template's extension names (`.csv`, `.jsonl` or `.ndjson`, `.xlsx`), if any. */
export function formatOfName(name: string): SourceFormat | undefined {
  const extension = /\.([A-Za-z]+)$/.exec(name)?.[1]?.toLowerCase();
  if (extension === 'ndjson') return 'jsonl';
  return (SOURCE_FORMATS as readonly string[]).includes(extension ?? '') ? (extension as SourceFormat) : undefined;
}

/** An export's file name: the template's tokens filled in with `at` as read in `timezone` (`*` is not allowed). */
export function renderTemplate(template: string, at: Date, timezone: string): string {
  if (!TEMPLATE_SHAPE.test(template) || template.includes('*')) throw new Error(`not an export file name template: ${template}`);
  const local = DateTime.fromJSDate(at, { zone: timezone });
  return template.replace(/\{(yyyy|yy|MM|dd|HH|mm|ss)\}/g, (_token, name: string) => local.toFormat(name));
}
