import type { Bilingual } from '../../../common/bilingual.js';
import { emptyValueOf } from '../../definitions/measures.js';
import { CUSTOMER_ROW } from '../../definitions/reports.js';
import type { Row } from '../../query/query-engine.js';
import { measuresNamed, querySpec, type ReportRequest } from '../report-request.js';
import { wholeTableFile, type ReportTableStrategy, type TableContext, type TablePage } from './table-strategy.js';

/** The groups of the customer_groups report: each a value of one customer dimension. */
const CUSTOMER_GROUPS: [group: string, dimension: string, value: string, label: Bilingual][] = [
  ['new', 'customer_type', 'new', { en: 'New customers', ar: 'العملاء الجدد' }],
  ['returning', 'customer_type', 'returning', { en: 'Returning customers', ar: 'العملاء العائدون' }],
  ['registered', 'customer_kind', 'registered', { en: 'Registered shoppers', ar: 'المتسوقون المسجّلون' }],
  ['guest', 'customer_kind', 'guest', { en: 'Guests', ar: 'الضيوف' }],
  ['arabic', 'locale', 'ar', { en: 'Shopping in Arabic', ar: 'يتسوقون بالعربية' }],
  ['english', 'locale', 'en', { en: 'Shopping in English', ar: 'يتسوقون بالإنجليزية' }],
];

const GROUPED_BY = [...new Set(CUSTOMER_GROUPS.map(([, dimension]) => dimension))];

async function customerGroups(request: ReportRequest, { engine }: TableContext): Promise<TablePage> {
  const measures = measuresNamed(CUSTOMER_ROW);
  const byDimension = new Map<string, Map<string, Row>>();
  for (const dimension of GROUPED_BY) {
    const { rows } = await engine.rows(querySpec(request, request.resolved.range, measures, [dimension]));
    byDimension.set(dimension, new Map(rows.map((row) => [String(row[dimension]), row])));
  }
  const rows = CUSTOMER_GROUPS.map(([group, dimension, value, label]) => {
    const row = byDimension.get(dimension)!.get(value);
    const figures = Object.fromEntries(measures.map((measure) => [measure.name, row ? row[measure.name] : emptyValueOf(measure)]));
    return { group, ...figures, labels: { group: label } };
  });
  if (request.sort) {
    const { measure, descending } = request.sort;
    rows.sort((a, b) => compareValues(a[measure as keyof typeof a], b[measure as keyof typeof b], descending));
  }
  return { rows, more: false };
}

function compareValues(a: unknown, b: unknown, descending: boolean): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return (descending ? -1 : 1) * ((a as number) - (b as number));
}

/** New and returning customers, registered shoppers and guests, by language: a row each. */
export const CUSTOMER_GROUPS_TABLE: ReportTableStrategy = {
  columns: () => [['group'], CUSTOMER_ROW],
  sortable: () => CUSTOMER_ROW,
  queries: (request) => GROUPED_BY.map((dimension) => querySpec(request, request.resolved.range, measuresNamed(CUSTOMER_ROW), [dimension])),
  page: customerGroups,
  file: (request, context) => wholeTableFile(customerGroups, request, context),
};
