import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { expect } from 'vitest';
import type { TestDatabase } from '../support/database.js';
import { adminCall } from '../support/dashboard.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';
import { formulaSafeText } from '../../src/common/formula-safety.js';

/** A calendar date `days` before today, UTC. */
export function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The search query of row `index`: Arabic mostly, and among them the texts a file writer can trip on
 * (commas, quotes, line breaks, a formula, a leading minus), so that a file read back shows each intact.
 */
export function searchQuery(index: number): string {
  if (index % 97 === 0) return `عطر "العود", رقم ${index}`;
  if (index % 101 === 0) return `مسك\nأبيض ${index}`;
  if (index % 103 === 0) return `=HYPERLINK("http://evil.example/${index}")`;
  if (index % 107 === 0) return `-${index} offer`;
  return `بحث رقم ${index}`;
}

/**
 * `count` distinct search queries in the store's daily search rollup, all on `day`: the searches
 * report over a range holding it has one row each. Counts repeat, so the sort meets ties.
 */
export async function seedSearches(db: TestDatabase, storeId: string, day: string, count: number): Promise<void> {
  const queries = Array.from({ length: count }, (_, index) => searchQuery(index));
  await db.query(
    `insert into insights_searches_daily (store_id, day, query, searches, zero_result_searches, followed_by_add, followed_by_order)
     select $1, $2::date, q.query, (q.n * 7919) % 997 + 3, (q.n * 31) % 3, (q.n * 17) % 4, (q.n * 13) % 2
     from unnest($3::text[]) with ordinality as q(query, n)`,
    [storeId, day, queries],
  );
}

/** What the searches report over `day` must hold, computed from the rollup by hand: query → searches. */
export async function expectedSearches(db: TestDatabase, storeId: string, day: string): Promise<Map<string, number>> {
  const rows = await db.rows<{ query: string; searches: number }>(
    `select query, searches from insights_searches_daily where store_id = $1 and day = $2`,
    [storeId, day],
  );
  return new Map(rows.map((row) => [row.query, row.searches]));
}

/** Polls an export until it has finished, and answers its last state. */
export async function finished(app: NestFastifyApplication, token: string, id: string, ms = 60_000): Promise<Record<string, any>> {
  return eventually(
    async () => ok(await adminCall(app, 'GET', `/admin/insights/exports/${id}`, token)),
    (doc) => doc.status === 'succeeded' || doc.status === 'failed',
    ms,
  );
}

/** Downloads an export's file: its headers, and its bytes. */
export async function download(app: NestFastifyApplication, token: string, id: string) {
  const response = await adminCall(app, 'GET', `/admin/insights/exports/${id}/file`, token);
  expect(response.statusCode, response.body).toBe(200);
  return { headers: response.headers, bytes: response.rawPayload };
}

/** A CSV file's records, after checking its byte order mark. */
export function csvRecords(bytes: Buffer): string[][] {
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return parse(bytes.subarray(3).toString('utf8')) as string[][];
}

/** An XLSX file's rows, every sheet's after its header, as cell values; and each sheet's header. */
export async function xlsxRows(bytes: Buffer): Promise<{ headers: unknown[][]; rows: unknown[][]; sheets: ExcelJS.Worksheet[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  const headers: unknown[][] = [];
  const rows: unknown[][] = [];
  for (const sheet of workbook.worksheets) {
    sheet.eachRow((row, number) => (number === 1 ? headers : rows).push((row.values as unknown[]).slice(1)));
  }
  return { headers, rows, sheets: workbook.worksheets };
}

/** A text cell of a file as written: a leading formula character defused with an apostrophe. */
export const writtenText = formulaSafeText;

/** Figures by query, the queries as a file writes them (formula-safe). */
export function byWrittenQuery<T>(byQuery: Map<string, T>): Map<string, T> {
  return new Map([...byQuery].map(([query, value]) => [writtenText(query), value]));
}
