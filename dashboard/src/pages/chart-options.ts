import type { EChartsCoreOption } from 'echarts/core';
import type { Formatter } from '../i18n/format.js';
import type { Lang, MessageKey } from '../i18n/messages.js';
import { pick } from '../lib/app-context.js';
import type { Column, ReportResponse, Row } from '../lib/types.js';

const COLOURS = ['#1f5fbf', '#b34700', '#2e7d32', '#6a1b9a'];
type T = (key: MessageKey, params?: Record<string, string | number>) => string;

export function sparklineOption(values: number[]): EChartsCoreOption {
  return {
    animation: false,
    grid: { left: 0, right: 0, top: 4, bottom: 4 },
    xAxis: { type: 'category', show: false, data: values.map((_, index) => index) },
    yAxis: { type: 'value', show: false, min: 0 },
    series: [{ type: 'line', data: values, showSymbol: false, lineStyle: { width: 2, color: COLOURS[0] }, areaStyle: { opacity: 0.08 } }],
  };
}

/** The report's series over time (and the compared range's, aligned by position). */
export function lineOption(report: ReportResponse, measures: Column[], lang: Lang, fmt: Formatter, t: T): EChartsCoreOption {
  const periods = report.series.map((point) => fmt.date(String(point.period).slice(0, 10)));
  const series = measures.flatMap((column, index) => {
    const name = measures.length > 1 ? pick(lang, column, 'label') : t('chart.current');
    const lines = [
      {
        name,
        type: 'line',
        data: report.series.map((point) => point[column.name] ?? 0),
        showSymbol: false,
        lineStyle: { width: 2 },
        color: COLOURS[(index * 2) % 4],
      },
    ];
    if (report.compareSeries) {
      lines.push({
        name: `${measures.length > 1 ? `${name} · ` : ''}${t('chart.compare')}`,
        type: 'line',
        data: report.compareSeries.map((point) => point[column.name] ?? 0),
        showSymbol: false,
        lineStyle: { width: 2, type: 'dashed' } as never,
        color: COLOURS[(index * 2 + 1) % 4],
      });
    }
    return lines;
  });
  const type = measures[0]?.type ?? 'count';
  const rtl = lang === 'ar';
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { trigger: 'axis', valueFormatter: (value: unknown) => fmt.value(value, type) },
    legend: { top: 0, [rtl ? 'right' : 'left']: 0 },
    grid: { left: rtl ? 16 : 72, right: rtl ? 72 : 16, top: 36, bottom: 32 },
    xAxis: { type: 'category', data: periods, inverse: rtl, boundaryGap: false },
    yAxis: { type: 'value', position: rtl ? 'right' : 'left', axisLabel: { formatter: (value: number) => fmt.value(value, type) } },
    series,
  };
}

/** A ranked dimension: the page's rows as horizontal bars of one measure, the largest on top. */
export function barOption(rows: Row[], dimension: Column, measure: Column, lang: Lang, fmt: Formatter): EChartsCoreOption {
  const top = rows.slice(0, 15);
  const rtl = lang === 'ar';
  const labelOf = (row: Row) => row.labels?.[dimension.name]?.[lang] ?? fmt.value(row[dimension.name], dimension.type);
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value: unknown) => fmt.value(value, measure.type) },
    grid: { left: rtl ? 16 : 8, right: rtl ? 8 : 16, top: 8, bottom: 24, containLabel: true },
    xAxis: { type: 'value', inverse: rtl, axisLabel: { formatter: (value: number) => fmt.value(value, measure.type) } },
    yAxis: {
      type: 'category',
      inverse: true,
      position: rtl ? 'right' : 'left',
      data: top.map(labelOf),
      axisLabel: { width: 160, overflow: 'truncate' },
    },
    series: [{ name: pick(lang, measure, 'label'), type: 'bar', data: top.map((row) => row[measure.name] ?? 0), color: COLOURS[0] }],
  };
}

/**
 * Cohorts: each first-order month a row, each month since a column, the share of its customers who
 * ordered again that month as the cell's colour and label.
 */
export function cohortHeatmapOption(rows: Row[], lang: Lang, fmt: Formatter): EChartsCoreOption {
  const cohorts = [...new Set(rows.map((row) => String(row.cohort)))].sort();
  const months = [...new Set(rows.map((row) => Number(row.months_since)))].sort((a, b) => a - b);
  const rtl = lang === 'ar';
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { valueFormatter: (value: unknown) => fmt.value(value, 'ratio') },
    grid: { left: rtl ? 16 : 8, right: rtl ? 8 : 16, top: 8, bottom: 56, containLabel: true },
    xAxis: { type: 'category', data: months.map((month) => fmt.number(month)), inverse: rtl, splitArea: { show: true } },
    yAxis: {
      type: 'category',
      inverse: true,
      position: rtl ? 'right' : 'left',
      data: cohorts.map((cohort) => fmt.date(cohort.slice(0, 10))),
      splitArea: { show: true },
    },
    visualMap: {
      min: 0,
      max: 1,
      calculable: false,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      inRange: { color: ['#f4f7fb', COLOURS[0]] },
      formatter: (value: number) => fmt.value(value, 'ratio'),
    },
    series: [
      {
        type: 'heatmap',
        data: rows.map((row) => [
          months.indexOf(Number(row.months_since)),
          cohorts.indexOf(String(row.cohort)),
          Number(row.retention_rate ?? 0),
        ]),
        label: { show: months.length <= 12, formatter: (cell: { value: number[] }) => fmt.value(cell.value[2], 'ratio'), fontSize: 10 },
      },
    ],
  };
}
