import { useEffect, useRef } from 'preact/hooks';
import type { EChartsCoreOption } from 'echarts/core';

type ECharts = typeof import('./echarts.js');
let loading: Promise<ECharts> | null = null;
/** ECharts is loaded when the first chart is drawn, not with the sign-in page. */
const load = () => (loading ??= import('./echarts.js'));

/** The kinds of series an option draws (`line`, `bar`, `funnel`…), space separated. */
const seriesKinds = (option: EChartsCoreOption) =>
  [...new Set(((option.series ?? []) as { type?: string }[]).map((series) => series.type))].join(' ');

/**
 * One ECharts canvas; `label` names it for assistive technology (the table beside it carries the figures),
 * `data-chart-kind` says what it draws.
 */
export function Chart({
  option,
  label,
  height = 320,
  rtl = false,
}: {
  option: EChartsCoreOption;
  label: string;
  height?: number;
  rtl?: boolean;
}) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<ECharts['echarts']['init']> | null>(null);
  useEffect(() => {
    let disposed = false;
    let observer: ResizeObserver | undefined;
    void load().then(({ echarts }) => {
      if (disposed || !element.current) return;
      chart.current = echarts.init(element.current, null, { renderer: 'canvas' });
      chart.current.setOption(option);
      observer = new ResizeObserver(() => chart.current?.resize());
      observer.observe(element.current);
    });
    return () => {
      disposed = true;
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);
  return (
    <div
      class="chart"
      ref={element}
      role="img"
      aria-label={label}
      data-chart-kind={seriesKinds(option)}
      dir={rtl ? 'rtl' : 'ltr'}
      style={{ height: `${height}px` }}
    />
  );
}
