import { useEffect } from 'preact/hooks';
import { Pager } from '../components/DataTable.js';
import { ProblemView } from '../components/Problem.js';
import { RangePicker, rangeParams } from '../components/RangePicker.js';
import { useApp } from '../lib/app-context.js';
import { findReport, reportTitle, showsOverTime } from '../lib/reports.js';
import { navigate, withQuery } from '../lib/router.js';
import { getReport } from '../lib/api.js';
import { useCursors, useLoad } from '../lib/load.js';
import { ReportFilters, reportBodyParams } from './insights/ReportFilters.js';
import { ReportChart, ReportTable, ResultView, Totals } from './insights/ReportView.js';
import { StartExport, rememberValues } from './insights/shared.js';

const PAGE_SIZES = ['25', '50', '100'];

/**
 * Any built-in report: a chart suited to its shape and its table, sortable and paged, over the chosen range.
 * The cohorts' heat map draws the whole triangle of the range: that report is asked without a `limit`,
 * which the API answers whole, and its table is paged here.
 */
export function Report({ name, query }: { name: string; query: URLSearchParams }) {
  const { t, lang, fmt } = useApp();
  const entry = findReport(name);
  const overTime = entry ? showsOverTime(entry) : true;
  const whole = entry?.chart === 'heatmap';
  const sort = query.get('sort') ?? '';
  const limit = PAGE_SIZES.includes(query.get('limit') ?? '') ? query.get('limit')! : '25';
  const params = rangeParams(query, overTime);
  if (sort) params.set('sort', sort);
  // A new range, sort or page size starts again from the first page.
  const { cursor, paging } = useCursors(`${name}?${params}&limit=${limit}`);
  if (!whole) params.set('limit', limit);
  if (!whole && cursor) params.set('cursor', cursor);
  const { data, error, loading } = useLoad(entry ? () => getReport(name, params) : null, [name, `${params}`]);
  useEffect(() => {
    // The names of the values in the rows: a filter by one of them is shown by its name.
    for (const column of data?.columns ?? []) {
      if (column.kind !== 'dimension' || !data!.filterable.includes(column.name)) continue;
      rememberValues(
        column.name,
        data!.rows.flatMap((row) => {
          const label = row.labels?.[column.name];
          return label ? [{ value: String(row[column.name]), label_en: label.en, label_ar: label.ar }] : [];
        }),
      );
    }
  }, [data]);
  if (!entry) return <p role="alert">{t('report.notFound')}</p>;
  const title = t(reportTitle(name));
  const sortedBy = data?.columns.find((column) => column.kind === 'measure' && sort.replace(/^-/, '') === column.name);
  const pages = paging(data?.nextCursor);
  return (
    <section aria-labelledby="page-title" aria-busy={loading} data-report={name}>
      <h1 id="page-title">{title}</h1>
      <RangePicker
        query={query}
        range={data?.range}
        compareRange={data?.compareRange}
        compare={overTime}
        grain={overTime}
        key={query.toString()}
      />
      {error ? <ProblemView error={error} lang={lang} fields /> : null}
      <ReportFilters query={query} filterable={data?.filterable} error={error} />
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data && whole ? <ResultView data={data} title={title} /> : null}
      {data && !whole ? (
        <>
          <ReportChart data={data} title={title} ranked={sortedBy} />
          <Totals data={data} />
          <ReportTable
            title={title}
            rows={data.rows}
            columns={data.columns}
            sort={sort}
            sortable={data.sortable}
            onSort={(next) => navigate(withQuery({ sort: next }))}
          />
          {pages.next || pages.previous ? (
            <Pager {...pages}>
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
            </Pager>
          ) : null}
        </>
      ) : null}
      {data ? <StartExport source={{ report: entry.name, params: reportBodyParams(query, overTime) }} /> : null}
    </section>
  );
}
