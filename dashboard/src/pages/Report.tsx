import { Pager } from '../components/DataTable.js';
import { ProblemView } from '../components/Problem.js';
import { RangePicker, rangeParams } from '../components/RangePicker.js';
import { useApp } from '../lib/app-context.js';
import { findReport, reportTitle } from '../lib/reports.js';
import { navigate, withQuery } from '../lib/router.js';
import type { ReportResponse } from '../lib/types.js';
import { pagePath, useCursors, useLoad } from '../lib/load.js';
import { ReportFilters, reportBodyParams } from './insights/ReportFilters.js';
import { ReportChart, ReportTable, Totals } from './insights/ReportView.js';
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
  const report = `/admin/insights/reports/${name}?${params}`;
  // A new range, sort or page size starts again from the first page.
  const { cursor, paging } = useCursors(`${report}&limit=${limit}`);
  const path = entry ? pagePath(report, Number(limit), cursor) : null;
  const { data, error, loading } = useLoad<ReportResponse>(path);
  if (!entry) return <p role="alert">{t('report.notFound')}</p>;
  const title = t(reportTitle(name));
  const sortedBy = data?.columns.find((column) => column.kind === 'measure' && sort.replace(/^-/, '') === column.name);
  return (
    <section aria-labelledby="page-title" aria-busy={loading} data-report={name}>
      <h1 id="page-title">{title}</h1>
      <RangePicker query={query} range={data?.range} compareRange={data?.compareRange} key={query.toString()} />
      <ReportFilters query={query} />
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data ? (
        <>
          <ReportChart data={data} title={title} ranked={sortedBy} />
          <Totals data={data} />
          <ReportTable
            title={title}
            rows={data.rows}
            columns={data.columns}
            sort={sort}
            sortable={entry.sortable}
            onSort={(next) => navigate(withQuery({ sort: next }))}
          />
          <Pager {...paging(data.nextCursor)}>
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
          <StartExport source={{ report: name, params: reportBodyParams(query) }} />
        </>
      ) : null}
    </section>
  );
}
