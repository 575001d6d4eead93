import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { Change } from '../../components/Change.js';
import { Chart } from '../../components/Chart.js';
import { DataTable } from '../../components/DataTable.js';
import { pick, useApp } from '../../lib/app-context.js';
import type { Paging } from '../../lib/load.js';
import { chartKindOf, valueText } from '../../lib/reports.js';
import type { Column, ReportResponse, Row } from '../../lib/types.js';
import { barOption, cohortHeatmapOption, funnelOption, lineOption } from '../chart-options.js';

/** Rows of an answer shown at once; the member pages through the rest. */
const RESULT_PAGE_ROWS = 100;

/** The measures of the series: columns named in its points, else the keys of its points. */
function seriesMeasures(data: ReportResponse): Column[] {
  const point = data.series[0] ?? {};
  const measures = data.columns.filter((column) => column.kind === 'measure');
  const inSeries = measures.filter((column) => column.name in point);
  if (inSeries.length > 0) return inSeries;
  return Object.keys(point)
    .filter((key) => key !== 'period')
    .map((name) => ({ name, kind: 'measure', type: 'count', label_en: name, label_ar: name }) as Column);
}

/**
 * The chart that suits an answer (`chartKindOf`): a line over its series, bars of `ranked` (the measure the
 * rows are sorted by) for its rows, the cohorts' heat map or the funnel's steps; none for a table. Its
 * heading names what it measures.
 */
export function ReportChart({ data, title, ranked }: { data: ReportResponse; title: string; ranked?: Column }) {
  const { t, lang, fmt } = useApp();
  const chart = useMemo(() => {
    const dimensions = data.columns.filter((column) => column.kind === 'dimension');
    const measure = ranked ?? data.columns.find((column) => column.kind === 'measure');
    const names = dimensions.map((column) => column.name);
    const labelOf = (name: string) => {
      const column = data.columns.find((entry) => entry.name === name);
      return column ? pick(lang, column, 'label') : name;
    };
    switch (chartKindOf(data.report, names)) {
      case 'line': {
        const measures = seriesMeasures(data).slice(0, 2);
        return data.series.length > 0 && measures.length > 0
          ? {
              option: lineOption(data, measures, lang, fmt, t),
              heading: t('overview.trend', { measure: measures.map((column) => pick(lang, column, 'label')).join(' · ') }),
            }
          : null;
      }
      case 'bar':
        return dimensions.length > 0 && measure && data.rows.length > 0
          ? {
              option: barOption(data.rows, dimensions, measure, lang, fmt),
              heading: t('chart.top', { count: fmt.number(Math.min(15, data.rows.length)), measure: pick(lang, measure, 'label') }),
            }
          : null;
      case 'heatmap':
        return data.rows.length > 0
          ? {
              option: cohortHeatmapOption(data.rows, data.columns, lang, fmt, t),
              heading: t('chart.byCohort', { measure: labelOf('retention_rate') }),
              height: Math.max(240, 28 * new Set(data.rows.map((row) => row.cohort)).size + 120),
            }
          : null;
      case 'funnel':
        return data.rows.length > 0
          ? { option: funnelOption(data.rows, lang, fmt, t), heading: t('chart.byStep', { measure: labelOf('step_sessions') }) }
          : null;
      case 'table':
        return null;
    }
  }, [data, ranked, lang]);
  const heading = useId();
  if (!chart) return null;
  return (
    <section class="panel" aria-labelledby={heading}>
      <h2 id={heading}>{chart.heading}</h2>
      <Chart
        rtl={lang === 'ar'}
        label={t('chart.label', { title: `${title} · ${chart.heading}` })}
        height={chart.height}
        option={chart.option}
      />
    </section>
  );
}

/** The answer's totals, one figure per measure, each with its change against the compared range when there is one. */
export function Totals({ data }: { data: ReportResponse }) {
  const { t, lang, fmt } = useApp();
  const measures = data.columns.filter((column) => column.kind === 'measure' && column.name in data.totals);
  if (measures.length === 0) return null;
  return (
    <section class="totals" aria-label={t('table.totals')}>
      <dl>
        {measures.map((column) => (
          <div key={column.name}>
            <dt>{pick(lang, column, 'label')}</dt>
            <dd>{fmt.value(data.totals[column.name], column.type)}</dd>
            {typeof data.compareTotals?.[column.name] === 'number' ? (
              <dd>
                <Change
                  value={data.totals[column.name]}
                  before={data.compareTotals[column.name]}
                  type={column.type}
                  direction={column.direction}
                />
              </dd>
            ) : null}
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * An answer's rows, values that have names (dimensions, a late order's status) by those names in the member's
 * language and figures formatted; its measure headers sort (`sort`: `-measure` largest first, `measure`
 * smallest first; `onSort` the next one). Columns no row carries (the funnel's and late orders' totals) are
 * the totals', not the table's.
 */
export function ReportTable({
  title,
  columns,
  rows,
  sort,
  sortable,
  onSort,
  paging,
}: {
  title: string;
  columns: Column[];
  rows: Row[];
  sort: string;
  /** The measures it sorts by, as the answer names them. */
  sortable: readonly string[];
  onSort: (sort: string) => void;
  paging?: Paging;
}) {
  const { t, lang, fmt } = useApp();
  return (
    <DataTable<Row>
      label={t('table.caption', { title })}
      empty={t('table.empty')}
      rows={rows}
      rowKey={(_, index) => String(index)}
      paging={paging}
      columns={columns
        .filter((column) => rows.length === 0 || rows.some((row) => column.name in row))
        .map((column) => {
          const order = sort === `-${column.name}` ? 'descending' : sort === column.name ? 'ascending' : undefined;
          return {
            header: pick(lang, column, 'label'),
            numeric: column.kind === 'measure',
            cell: (row: Row) => valueText(row, column, lang, fmt),
            sort:
              column.kind === 'measure' && sortable.includes(column.name)
                ? { order, toggle: () => onSort(order === 'descending' ? column.name : `-${column.name}`) }
                : undefined,
          };
        })}
    />
  );
}

/** `rows` ordered by `sort` (`-measure` or `measure`), rows without a figure last either way. */
function sortRows(rows: Row[], sort: string): Row[] {
  if (!sort) return rows;
  const name = sort.replace(/^-/, '');
  const direction = sort.startsWith('-') ? -1 : 1;
  const figure = (row: Row) => (typeof row[name] === 'number' ? (row[name] as number) : null);
  return [...rows].sort((a, b) => {
    const [x, y] = [figure(a), figure(b)];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return (x - y) * direction;
  });
}

/**
 * An answer that holds all its rows (a builder or saved report's, up to 5,000; the cohorts' whole triangle):
 * its chart, totals and table, sorted (by the measures the answer names `sortable`) and paged here, without
 * asking the service again.
 */
export function ResultView({ data, title }: { data: ReportResponse; title: string }) {
  const [sort, setSort] = useState('');
  const [page, setPage] = useState(0);
  useEffect(() => {
    setSort('');
    setPage(0);
  }, [data]);
  const sorted = useMemo(() => ({ ...data, rows: sortRows(data.rows, sort) }), [data, sort]);
  const ranked = data.columns.find((column) => column.kind === 'measure' && sort.replace(/^-/, '') === column.name);
  const pages = Math.max(1, Math.ceil(sorted.rows.length / RESULT_PAGE_ROWS));
  return (
    <div class="ins-result" data-result>
      <ReportChart data={sorted} title={title} ranked={ranked} />
      <Totals data={data} />
      <ReportTable
        title={title}
        columns={data.columns}
        rows={sorted.rows.slice(page * RESULT_PAGE_ROWS, (page + 1) * RESULT_PAGE_ROWS)}
        sort={sort}
        sortable={data.sortable}
        onSort={(next) => {
          setSort(next);
          setPage(0);
        }}
        paging={{
          page: page + 1,
          next: page + 1 < pages ? () => setPage(page + 1) : null,
          previous: page > 0 ? () => setPage(page - 1) : null,
        }}
      />
    </div>
  );
}
