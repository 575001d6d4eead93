import type { EChartsCoreOption } from 'echarts/core';
import type { Formatter } from '../i18n/format.js';
import { translateCount, type Lang, type MessageKey } from '../i18n/messages.js';
import { pick } from '../lib/app-context.js';
import { valueText } from '../lib/reports.js';
import type { Column, ReportResponse, Row } from '../lib/types.js';

const COLOURS = ['#1f5fbf', '#b34700', '#2e7d32', '#6a1b9a'];
/** Cohort heat map cells, lighter to darker as more of a cohort ordered again. */
const HEAT_COLOURS = ['#e1eaf7', '#c0d4f0', '#8fb2e4', '#5a8cd4', '#1f5fbf'];
/** An axis's name, in the muted ink of the page's labels. */
const AXIS_NAME = { color: '#4a5360', fontWeight: 600 } as const;
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
 * kinds (late orders, a count, and the on-time rate, a ratio) each get an axis of their own, named by its
 * measures; the time axis is named by the series' grain.
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
    grid: { [start]: 8, [end]: types.length > 1 ? 8 : 24, top: 36, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    xAxis: {
      type: 'category',
      data: periods,
      inverse: rtl,
      boundaryGap: false,
      name: t(`grain.${report.range.grain}` as MessageKey),
      nameLocation: 'middle',
      nameGap: 28,
      nameTextStyle: AXIS_NAME,
    },
    yAxis: types.map((type, index) => ({
      type: 'value',
      position: index === 0 ? start : end,
      ...(type === 'ratio' ? { min: 0, max: 1 } : type === 'count' ? { minInterval: 1 } : {}),
      splitLine: { show: index === 0 },
      axisLabel: { formatter: (value: number) => fmt.compact(value, type) },
      name: measures
        .filter((column) => column.type === type)
        .map((column) => pick(lang, column, 'label'))
        .join(' · '),
      nameLocation: 'middle',
      nameMoveOverlap: true,
      nameTextStyle: AXIS_NAME,
    })),
    series,
  };
}

/**
 * A ranked dimension: the page's rows as horizontal bars of one measure, the largest on top, each named by
 * all its dimensions (fulfilment: "Delivery · Express"); the value axis is named by the measure, the other
 * by the dimensions.
 */
export function barOption(rows: Row[], dimensions: Column[], measure: Column, lang: Lang, fmt: Formatter): EChartsCoreOption {
  const top = rows.slice(0, 15);
  const rtl = lang === 'ar';
  const labelOf = (row: Row) => dimensions.map((dimension) => valueText(row, dimension, lang, fmt)).join(' · ');
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, valueFormatter: (value: unknown) => fmt.value(value, measure.type) },
    grid: { left: rtl ? 16 : 8, right: rtl ? 8 : 16, top: 20, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    xAxis: {
      type: 'value',
      inverse: rtl,
      ...(measure.type === 'count' ? { minInterval: 1 } : {}),
      axisLabel: { formatter: (value: number) => fmt.compact(value, measure.type) },
      name: pick(lang, measure, 'label'),
      nameLocation: 'middle',
      nameMoveOverlap: true,
      nameTextStyle: AXIS_NAME,
    },
    yAxis: {
      type: 'category',
      inverse: true,
      position: rtl ? 'right' : 'left',
      data: top.map(labelOf),
      axisLabel: { width: 200, overflow: 'truncate' },
      // Above the bars' names, ending where the bars start.
      name: dimensions.map((dimension) => pick(lang, dimension, 'label')).join(' · '),
      nameLocation: 'start',
      nameTextStyle: { ...AXIS_NAME, align: rtl ? 'left' : 'right' },
    },
    series: [{ name: pick(lang, measure, 'label'), type: 'bar', data: top.map((row) => row[measure.name] ?? 0), color: COLOURS[0] }],
  };
}

/** The legend's steps of the cohort heat map: five up to a round share just above the highest return, the last open-ended. */
function retentionSteps(highest: number): number[] {
  const top = [0.05, 0.1, 0.2, 0.25, 0.5, 1].find((step) => step >= highest) ?? 1;
  return [1, 2, 3, 4].map((step) => (top * step) / 5);
}

/**
 * Cohorts: the whole triangle of the range, each first-order month a row named as a month ("Nov 2025"),
 * each month since a column, the share of its customers who ordered again that month as the cell's colour
 * and figure. Month 0 is every cohort's 100%: the legend's steps are set by the months after it, which are
 * what a merchant compares, so that 5% and 15% do not look alike.
 */
export function cohortHeatmapOption(rows: Row[], columns: Column[], lang: Lang, fmt: Formatter, t: T): EChartsCoreOption {
  const cohorts = [...new Set(rows.map((row) => String(row.cohort)))].sort();
  const months = [...new Set(rows.map((row) => Number(row.months_since)))].sort((a, b) => a - b);
  const label = (name: string) => {
    const column = columns.find((entry) => entry.name === name);
    return column ? pick(lang, column, 'label') : name;
  };
  const size = new Map(
    rows.filter((row) => Number(row.months_since) === 0).map((row) => [String(row.cohort), Number(row.cohort_customers)]),
  );
  const later = rows.filter((row) => Number(row.months_since) > 0).map((row) => Number(row.retention_rate ?? 0));
  const steps = retentionSteps(Math.max(0, ...later));
  const bounds = [0, ...steps];
  const rtl = lang === 'ar';
  const percent = (ratio: number) => fmt.value(ratio, 'ratio');
  return {
    animation: false,
    textStyle: { fontFamily: 'system-ui, sans-serif' },
    tooltip: {
      formatter: ({ value }: { value: [number, number, number, number] }) => {
        const cohort = cohorts[value[1]];
        return [
          `<strong>${escapeHtml(fmt.month(cohort))}</strong>`,
          escapeHtml(t('ins.cohorts.month', { n: fmt.number(months[value[0]]) })),
          escapeHtml(
            t('ins.cohorts.cell', {
              rate: percent(value[2]),
              customers: fmt.number(value[3]),
              of: fmt.number(size.get(cohort) ?? 0),
            }),
          ),
        ].join('<br>');
      },
    },
    grid: { left: rtl ? 16 : 8, right: rtl ? 8 : 16, top: 8, bottom: 48, outerBoundsMode: 'same', outerBoundsContain: 'all' },
    xAxis: {
      type: 'category',
      data: months.map((month) => fmt.number(month)),
      inverse: rtl,
      name: label('months_since'),
      nameLocation: 'middle',
      nameMoveOverlap: true,
      nameTextStyle: AXIS_NAME,
    },
    yAxis: {
      type: 'category',
      inverse: true,
      position: rtl ? 'right' : 'left',
      data: cohorts.map((cohort) => fmt.month(cohort)),
      name: label('cohort'),
      nameLocation: 'start',
      nameTextStyle: { ...AXIS_NAME, align: rtl ? 'left' : 'right' },
    },
    visualMap: {
      type: 'piecewise',
      dimension: 2,
      orient: 'horizontal',
      left: 'center',
      bottom: 0,
      itemSymbol: 'rect',
      text: [label('retention_rate')],
      textStyle: { color: '#1b1f24' },
      showLabel: true,
      // Its pieces are a legend, not a control: choosing one would hide cells.
      selectedMode: false,
      pieces: bounds.map((min, index) =>
        index < steps.length
          ? { gte: min, lt: bounds[index + 1], label: `${percent(min)} – ${percent(bounds[index + 1])}`, color: HEAT_COLOURS[index] }
          : { gte: min, label: `≥ ${percent(min)}`, color: HEAT_COLOURS[index] },
      ),
    },
    series: [
      {
        name: label('retention_rate'),
        type: 'heatmap',
        data: rows.map((row) => {
          const rate = Number(row.retention_rate ?? 0);
          return {
            value: [months.indexOf(Number(row.months_since)), cohorts.indexOf(String(row.cohort)), rate, Number(row.cohort_customers ?? 0)],
            // Dark ink on the light cells, white on the two darkest.
            label: { color: rate >= steps[2] ? '#ffffff' : '#1b1f24' },
          };
        }),
        label: { show: true, fontSize: 10, formatter: ({ value }: { value: number[] }) => percent(value[2]) },
        itemStyle: { borderColor: '#ffffff', borderWidth: 1 },
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
      sessions: translateCount(lang, 'ins.funnel.sessions', sessions, { count: fmt.number(sessions) }),
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
