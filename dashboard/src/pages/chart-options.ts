import type { EChartsCoreOption } from 'echarts/core';
import type { Formatter } from '../i18n/format.js';
import type { Lang, MessageKey } from '../i18n/messages.js';
import { pick } from '../lib/app-context.js';
import type { Column, ReportResponse, Row } from '../lib/types.js';

const COLOURS = ['#1f5fbf', '#b34700', '#2e7d32', '#6a1b9a'];
/** The funnel's steps, darker as it narrows. */
const FUNNEL_COLOURS = ['#9dbbe6', '#6f9bdc', '#3f78cf', '#1f5fbf', '#17478f'];
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

/**
 * The report's series over time (and the compared range's, aligned by position). Two measures of different
 * kinds (late orders, a count, and the on-time rate, a ratio) each get an axis of their own.
 */
export function lineOption(report: ReportResponse, measures: Column[], lang: Lang, fmt: Formatter, t: T): EChartsCoreOption {
  const periods = report.series.map((point) => fmt.date(String(point.period).slice(0, 10)));
  const types = [...new Set(measures.map((column) => column.type))];
  const series = measures.flatMap((column, index) => {
    const name = measures.length > 1 ? pick(lang, column, 'label') : t('chart.current');
    const line = (points: ReportResponse['series'], lineName: string, colour: string, dashed: boolean) => ({
      name: lineName,
      type: 'line',
      yAxisIndex: types.indexOf(column.type),
      data: points.map((point) => point[column.name] ?? 0),
      showSymbol: false,
      lineStyle: { width: 2, ...(dashed ? { type: 'dashed' } : {}) },
      color: colour,
      tooltip: { valueFormatter: (value: unknown) => fmt.value(value, column.type) },
    });
    const lines = [line(report.series, name, COLOURS[(index * 2) % 4], false)];
    if (report.compareSeries) {
      const compared = `${measures.length > 1 ? `${name} · ` : ''}${t('chart.compare')}`;
      lines.push(line(report.compareSeries, compared, COLOURS[(index * 2 + 1) % 4], true));
    }
    return lines;
  });
  const rtl = lang === 'ar';
  // The first axis on the reading side's start, a second on its end.
  const start = rtl ? 'right' : 'left';
  const end = rtl ? 'left' : 'right';
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { trigger: 'axis' },
    legend: { top: 0, [start]: 0 },
    grid: { [start]: 8, [end]: types.length > 1 ? 8 : 24, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: periods, inverse: rtl, boundaryGap: false },
    yAxis: types.map((type, index) => ({
      type: 'value',
      position: index === 0 ? start : end,
      ...(type === 'ratio' ? { min: 0, max: 1 } : type === 'count' ? { minInterval: 1 } : {}),
      splitLine: { show: index === 0 },
      axisLabel: { formatter: (value: number) => fmt.value(value, type) },
    })),
    series,
  };
}

/**
 * A ranked dimension: the page's rows as horizontal bars of one measure, the largest on top, each named by
 * all its dimensions (fulfilment: "Delivery · Express").
 */
export function barOption(rows: Row[], dimensions: Column[], measure: Column, lang: Lang, fmt: Formatter): EChartsCoreOption {
  const top = rows.slice(0, 15);
  const rtl = lang === 'ar';
  const labelOf = (row: Row) =>
    dimensions.map((dimension) => row.labels?.[dimension.name]?.[lang] ?? fmt.value(row[dimension.name], dimension.type)).join(' · ');
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value: unknown) => fmt.value(value, measure.type) },
    grid: { left: rtl ? 16 : 8, right: rtl ? 8 : 16, top: 8, bottom: 24, containLabel: true },
    xAxis: {
      type: 'value',
      inverse: rtl,
      ...(measure.type === 'count' ? { minInterval: 1 } : {}),
      axisLabel: { formatter: (value: number) => fmt.value(value, measure.type) },
    },
    yAxis: {
      type: 'category',
      inverse: true,
      position: rtl ? 'right' : 'left',
      data: top.map(labelOf),
      axisLabel: { width: 200, overflow: 'truncate' },
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

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The funnel report's steps (sessions → product viewed → added to cart → reached checkout → ordered), in
 * their order, each as wide as its sessions; labelled with its sessions and the share of the step before
 * that reached it, the tooltip adding the share of all sessions. Labels sit on the reading side's end.
 */
export function funnelOption(rows: Row[], lang: Lang, fmt: Formatter, t: T): EChartsCoreOption {
  const rtl = lang === 'ar';
  const steps = rows.map((row, index) => {
    const sessions = Number(row.step_sessions ?? 0);
    const rate = (ratio: unknown, key: MessageKey) => (typeof ratio === 'number' ? t(key, { rate: fmt.percent(ratio) }) : null);
    return {
      name: row.labels?.step?.[lang] ?? String(row.step),
      value: sessions,
      sessions: t('ins.funnel.sessions', { count: fmt.number(sessions) }),
      // The first step is every session: its conversion says nothing.
      fromPrevious: index > 0 ? rate(row.step_conversion, 'ins.funnel.ofPrevious') : null,
      ofAll: index > 0 ? rate(row.overall_conversion, 'ins.funnel.ofAll') : null,
    };
  });
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: {
      trigger: 'item',
      formatter: ({ dataIndex }: { dataIndex: number }) => {
        const step = steps[dataIndex];
        return [`<strong>${escapeHtml(step.name)}</strong>`, step.sessions, step.fromPrevious, step.ofAll].filter(Boolean).join('<br>');
      },
    },
    series: [
      {
        name: t('report.funnel'),
        type: 'funnel',
        sort: 'none',
        top: 8,
        bottom: 8,
        [rtl ? 'right' : 'left']: '4%',
        [rtl ? 'left' : 'right']: '42%',
        minSize: '12%',
        gap: 2,
        label: {
          position: rtl ? 'left' : 'right',
          color: '#1d232b',
          lineHeight: 18,
          formatter: ({ dataIndex }: { dataIndex: number }) => {
            const step = steps[dataIndex];
            return `${step.name}\n${[step.sessions, step.fromPrevious].filter(Boolean).join(' · ')}`;
          },
        },
        data: steps.map(({ name, value }, index) => ({ name, value, itemStyle: { color: FUNNEL_COLOURS[index % FUNNEL_COLOURS.length] } })),
      },
    ],
  };
}
