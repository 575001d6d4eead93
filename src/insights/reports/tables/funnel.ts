import type { Bilingual } from '../../../common/bilingual.js';
import { measuresNamed, querySpec, type ReportRequest } from '../report-request.js';
import { wholeTableFile, type ReportTableStrategy, type TableContext, type TablePage } from './table-strategy.js';

/** The steps of the funnel, in order, as rows of the funnel report. */
const FUNNEL_STEPS: [step: string, measure: string, label: Bilingual][] = [
  ['sessions', 'sessions', { en: 'Sessions', ar: 'الجلسات' }],
  ['product_viewed', 'sessions_with_product_view', { en: 'Viewed a product', ar: 'شاهدوا منتجًا' }],
  ['added_to_cart', 'sessions_with_cart_addition', { en: 'Added to cart', ar: 'أضافوا إلى السلة' }],
  ['reached_checkout', 'sessions_reaching_checkout', { en: 'Reached checkout', ar: 'وصلوا إلى الدفع' }],
  ['ordered', 'sessions_with_order', { en: 'Ordered', ar: 'قدّموا طلبًا' }],
];

const stepsQuery = (request: ReportRequest) =>
  querySpec(request, request.resolved.range, measuresNamed(FUNNEL_STEPS.map(([, measure]) => measure)), []);

async function funnel(request: ReportRequest, { engine }: TableContext): Promise<TablePage> {
  const { rows } = await engine.rows(stepsQuery(request));
  const totals = rows[0] ?? {};
  const started = Number(totals.sessions ?? 0);
  let previous = started;
  return {
    rows: FUNNEL_STEPS.map(([step, measure, label]) => {
      const sessions = Number(totals[measure] ?? 0);
      const row = {
        step,
        step_sessions: sessions,
        step_conversion: previous > 0 ? sessions / previous : null,
        overall_conversion: started > 0 ? sessions / started : null,
        labels: { step: label },
      };
      previous = sessions;
      return row;
    }),
    more: false,
  };
}

/** Sessions through the funnel's steps: a row per step, with its conversion from the one before and from the start. */
export const FUNNEL_TABLE: ReportTableStrategy = {
  columns: () => [['step'], ['step_sessions', 'step_conversion', 'overall_conversion']],
  sortable: () => [],
  queries: (request) => [stepsQuery(request)],
  page: funnel,
  file: (request, context) => wholeTableFile(funnel, request, context),
};
