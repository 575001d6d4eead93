import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Change } from '../components/Change.js';
import { Chart } from '../components/Chart.js';
import { ProblemView } from '../components/Problem.js';
import { RangePicker, rangeParams } from '../components/RangePicker.js';
import { pick, useApp } from '../lib/app-context.js';
import { getReport } from '../lib/api.js';
import type { Column } from '../lib/types.js';
import { useLoad } from '../lib/load.js';
import { lineOption, sparklineOption } from './chart-options.js';

const HEADLINES = ['net_sales', 'total_sales', 'orders', 'average_order_value', 'customers', 'returning_customer_rate'];

let measuring: CanvasRenderingContext2D | null = null;

/** The width `text` takes in `element`'s font. */
function textWidth(element: HTMLElement, text: string): number {
  measuring ??= document.createElement('canvas').getContext('2d');
  if (!measuring) return 0;
  const style = getComputedStyle(element);
  measuring.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  return measuring.measureText(text).width;
}

/**
 * A headline figure that never runs past its card: in full where it fits, else in compact notation
 * ("SAR 116.1K"), the full figure on hover (`title`) and for screen readers; checked again as the card's
 * width changes.
 */
function HeadlineFigure({ value, type }: { value: unknown; type: string }) {
  const { fmt } = useApp();
  const full = fmt.value(value, type);
  const compact = fmt.compact(value, type);
  const element = useRef<HTMLParagraphElement>(null);
  const [fits, setFits] = useState(true);
  useLayoutEffect(() => {
    const figure = element.current!;
    const check = () => setFits(textWidth(figure, full) <= figure.clientWidth);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(figure);
    return () => observer.disconnect();
  }, [full]);
  if (fits || compact === full)
    return (
      <p class="figure" ref={element}>
        {full}
      </p>
    );
  return (
    <p class="figure" ref={element} title={full} data-compact>
      <span aria-hidden="true">{compact}</span>
      <span class="visually-hidden">{full}</span>
    </p>
  );
}

/** Insights overview: headline figures with their change against the compared range, sparklines and the trend. */
export function Overview({ query }: { query: URLSearchParams }) {
  const { t, lang, fmt } = useApp();
  const params = rangeParams(query);
  const { data, error, loading } = useLoad(() => getReport('overview', params), [`${params}`]);
  useEffect(() => {
    // The first meaningful render, measured by the browser test (README, "Dashboard").
    if (data && performance.getEntriesByName('dashboard-interactive').length === 0) performance.mark('dashboard-interactive');
  }, [data]);
  const columns = useMemo(() => new Map((data?.columns ?? []).map((column) => [column.name, column])), [data]);
  const headlines = HEADLINES.map((name) => columns.get(name)).filter((column): column is Column => Boolean(column));
  const net = columns.get('net_sales');
  return (
    <section aria-labelledby="page-title" aria-busy={loading}>
      <h1 id="page-title">{t('overview.title')}</h1>
      <RangePicker query={query} range={data?.range} compareRange={data?.compareRange} key={query.toString()} />
      {error ? <ProblemView error={error} lang={lang} fields /> : null}
      {!data && !error ? <p role="status">{t('app.loading')}</p> : null}
      {data ? (
        <>
          <h2 class="visually-hidden">{t('overview.headline')}</h2>
          <ul class="cards">
            {headlines.map((column) => {
              const value = data.totals[column.name];
              const label = pick(lang, column, 'label');
              return (
                <li class="card" key={column.name} data-measure={column.name}>
                  <h3>{label}</h3>
                  <HeadlineFigure value={value} type={column.type} />
                  <p class="card-change">
                    {data.compareTotals ? (
                      <Change value={value} before={data.compareTotals[column.name]} type={column.type} direction={column.direction} />
                    ) : (
                      <span class="delta">{t('overview.noCompare')}</span>
                    )}
                  </p>
                  <Chart
                    height={48}
                    label={t('chart.label', { title: label })}
                    option={sparklineOption(data.series.map((point) => Number(point[column.name] ?? 0)))}
                  />
                </li>
              );
            })}
          </ul>
          {net ? (
            <section class="panel" aria-labelledby="trend-title">
              <h2 id="trend-title">{t('overview.trend', { measure: pick(lang, net, 'label') })}</h2>
              <Chart
                label={t('chart.label', { title: t('overview.trend', { measure: pick(lang, net, 'label') }) })}
                rtl={lang === 'ar'}
                option={lineOption(data, [net], lang, fmt, t)}
              />
            </section>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
