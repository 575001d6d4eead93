import { useEffect, useState } from 'preact/hooks';
import { Chart } from '../components/Chart.js';
import { ProblemView } from '../components/Problem.js';
import { RangePicker, rangeParams } from '../components/RangePicker.js';
import { pick, useApp } from '../lib/app-context.js';
import { findReport, reportTitle } from '../lib/reports.js';
import { navigate, withQuery } from '../lib/router.js';
import type { Column, ReportResponse, Row } from '../lib/types.js';
import { useFetch } from '../lib/use-fetch.js';
import { barOption, cohortHeatmapOption, lineOption } from './chart-options.js';
import { ReportFilters, reportBodyParams } from './insights/ReportFilters.js';
import { StartExport } from './insights/shared.js';

const PAGE_SIZES = ['25', '50', '100'];

/** Any built-in report: a chart suited to its shape and its table, sortable and paged, over the chosen range. */
export function Report({ name, query }: { name: string; query: URLSearchParams }) {
  const { t, lang, fmt } = useApp();
  const entry = findReport(name);
  const sort = query.get('sort') ?? '';
  const limit = PAGE_SIZES.includes(query.get('limit') ?? '') ? query.get('limit')! : '25';
  const params = rangeParams(query);
  if (sort) params.set('sort', sort);
  params.set('limit', limit);
  const base = params.toString();
  // Cursors of the pages before this one; a new range, sort or page size starts again from the first page.
  const [pages, setPages] = useState<string[]>([]);
  useEffect(() => setPages([]), [base, name]);
  const cursor = pages[pages.length - 1];
  const path = entry ? `/admin/insights/reports/${name}?${base}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}` : null;
  const { data, error, loading } = useFetch<ReportResponse>(path);
  if (!entry) return <p role="alert">{t('report.notFound')}</p>;
  const title = t(reportTitle(name));
  const dimensions = data?.columns.filter((column) => column.kind === 'dimension') ?? [];
  const measures = data?.columns.filter((column) => column.kind === 'measure') ?? [];
  const sortedBy = measures.find((column) => sort.replace(/^-/, '') === column.name) ?? measures[0];
  return (
    <section aria-labelledby="page-title" aria-busy={loading} data-report={name}>
      <h1 id="page-title">{title}</h1>
      <RangePicker query={query} range={data?.range} key={query.toString()} />
      <ReportFilters query={query} />
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data ? (
        <>
          {entry.chart === 'bar' && dimensions[0] && sortedBy && data.rows.length > 0 ? (
            <section
              class="panel"
              aria-label={t('chart.top', { count: fmt.number(Math.min(15, data.rows.length)), measure: pick(lang, sortedBy, 'label') })}
            >
              <Chart
                rtl={lang === 'ar'}
                label={t('chart.label', { title: `${title} · ${pick(lang, sortedBy, 'label')}` })}
                option={barOption(data.rows, dimensions[0], sortedBy, lang, fmt)}
              />
            </section>
          ) : null}
          {entry.chart === 'heatmap' && data.rows.length > 0 ? (
            <section class="panel" aria-label={title}>
              <Chart
                rtl={lang === 'ar'}
                label={t('chart.label', { title })}
                height={Math.max(240, 28 * new Set(data.rows.map((row) => row.cohort)).size + 96)}
                option={cohortHeatmapOption(data.rows, lang, fmt)}
              />
            </section>
          ) : null}
          {entry.chart === 'line' && data.series.length > 0 ? (
            <section class="panel" aria-label={title}>
              <Chart
                rtl={lang === 'ar'}
                label={t('chart.label', { title })}
                option={lineOption(data, seriesMeasures(data).slice(0, 2), lang, fmt, t)}
              />
            </section>
          ) : null}
          <Totals data={data} />
          <ReportTable
            title={title}
            rows={data.rows}
            columns={data.columns}
            sort={sort}
            onSort={(next) => navigate(withQuery({ sort: next }))}
          />
          <nav class="pager" aria-label={t('table.caption', { title })}>
            <button type="button" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>
              {t('table.previous')}
            </button>
            <span aria-live="polite">{t('table.page', { page: fmt.number(pages.length + 1) })}</span>
            <button type="button" disabled={!data.nextCursor} onClick={() => data.nextCursor && setPages([...pages, data.nextCursor])}>
              {t('table.next')}
            </button>
            <label>
              <span>{t('table.perPage')}</span>
              <select value={limit} onChange={(event) => navigate(withQuery({ limit: event.currentTarget.value }))}>
                {PAGE_SIZES.map((size) => (
                  <option value={size} key={size}>
                    {fmt.number(Number(size))}
                  </option>
                ))}
              </select>
            </label>
          </nav>
          <StartExport source={{ report: name, params: reportBodyParams(query) }} />
        </>
      ) : null}
    </section>
  );
}

/** The measures of the series: columns named in its points, else the table's measures. */
function seriesMeasures(data: ReportResponse): Column[] {
  const point = data.series[0] ?? {};
  const measures = data.columns.filter((column) => column.kind === 'measure');
  const inSeries = measures.filter((column) => column.name in point);
  if (inSeries.length > 0) return inSeries;
  return Object.keys(point)
    .filter((key) => key !== 'period')
    .map((name) => ({ name, kind: 'measure', type: 'count', label_en: name, label_ar: name }) as Column);
}

function Totals({ data }: { data: ReportResponse }) {
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
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The report's rows; measure headers sort (server side: `sort=-measure` largest first, `sort=measure` smallest). */
function ReportTable({
  title,
  rows,
  columns,
  sort,
  onSort,
}: {
  title: string;
  rows: Row[];
  columns: Column[];
  sort: string;
  onSort: (sort: string) => void;
}) {
  const { t, lang, fmt } = useApp();
  const cell = (row: Row, column: Column) =>
    column.kind === 'dimension' && row.labels?.[column.name] ? row.labels[column.name][lang] : fmt.value(row[column.name], column.type);
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={t('table.caption', { title })}>
      <table>
        <caption class="visually-hidden">{t('table.caption', { title })}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const label = pick(lang, column, 'label');
              const state = sort === `-${column.name}` ? 'descending' : sort === column.name ? 'ascending' : undefined;
              return (
                <th scope="col" key={column.name} aria-sort={state} class={column.kind === 'measure' ? 'num' : undefined}>
                  {column.kind === 'measure' ? (
                    <button
                      type="button"
                      class="sort"
                      aria-label={t('table.sortBy', { column: label })}
                      onClick={() => onSort(state === 'descending' ? column.name : `-${column.name}`)}
                    >
                      {label}
                      <span aria-hidden="true">{state === 'descending' ? ' ▼' : state === 'ascending' ? ' ▲' : ''}</span>
                    </button>
                  ) : (
                    label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length}>{t('table.empty')}</td>
            </tr>
          ) : (
            rows.map((row, index) => (
              <tr key={index}>
                {columns.map((column) => (
                  <td key={column.name} class={column.kind === 'measure' ? 'num' : undefined}>
                    {cell(row, column)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
