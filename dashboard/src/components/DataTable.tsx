import type { ComponentChildren } from 'preact';
import { useApp } from '../lib/app-context.js';
import type { Paging } from '../lib/load.js';
import { ProblemView } from './Problem.js';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Figures: aligned to the end, tabular digits. */
  numeric?: boolean;
  /** A sortable column: the order the rows are in by it (if they are), and a click on its header. */
  sort?: { order: 'ascending' | 'descending' | undefined; toggle: () => void };
}

/**
 * The dashboard's one list table: its error, loading and empty states, a scrollable region the keyboard can
 * reach, a caption for screen readers, and the pager when the list has more than one page.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  rowData,
  empty,
  error,
  paging,
}: {
  label: string;
  columns: Column<T>[];
  /** Undefined while loading. */
  rows: T[] | undefined;
  /** A row's key; `index` for rows that have none of their own. */
  rowKey: (row: T, index: number) => string;
  /** `data-*` attributes of a row, for the browser tests and styling. */
  rowData?: (row: T) => Record<`data-${string}`, string | boolean>;
  empty: string;
  error?: unknown;
  paging?: Paging;
}) {
  const { t, lang } = useApp();
  return (
    <>
      {error ? <ProblemView error={error} lang={lang} /> : null}
      {rows === undefined && !error ? <p role="status">{t('app.loading')}</p> : null}
      {rows?.length === 0 ? <p>{empty}</p> : null}
      {rows?.length ? (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
          <table>
            <caption class="visually-hidden">{label}</caption>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th scope="col" key={column.header} class={column.numeric ? 'num' : undefined} aria-sort={column.sort?.order}>
                    {column.sort ? (
                      <button
                        type="button"
                        class="sort"
                        aria-label={t('table.sortBy', { column: column.header })}
                        onClick={column.sort.toggle}
                      >
                        {column.header}
                        <span aria-hidden="true">
                          {column.sort.order === 'descending' ? ' ▼' : column.sort.order === 'ascending' ? ' ▲' : ''}
                        </span>
                      </button>
                    ) : (
                      column.header
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, index) => (
                <tr key={rowKey(row, index)} {...rowData?.(row)}>
                  {columns.map((column) => (
                    <td key={column.header} class={column.numeric ? 'num' : undefined}>
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {paging ? <Pager {...paging} /> : null}
    </>
  );
}

/** Previous, the page's number and Next, when there is more than one page; `children` (a page size) always. */
export function Pager({ page, next, previous, children }: Paging & { children?: ComponentChildren }) {
  const { t, fmt } = useApp();
  if (!next && !previous && !children) return null;
  return (
    <div class="pager">
      <button type="button" onClick={previous ?? undefined} disabled={!previous}>
        {t('table.previous')}
      </button>
      <span aria-live="polite">{t('table.page', { page: fmt.number(page) })}</span>
      <button type="button" onClick={next ?? undefined} disabled={!next}>
        {t('table.next')}
      </button>
      {children}
    </div>
  );
}
