import type { Attributes } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BOUNDARIES, RequestDurations } from '../../src/infra/telemetry/request-durations.js';

class CollectingReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/**
 * Issue 29, item 10: request durations are aggregated by the service's own series instead of the SDK's histogram
 * (which hashes each measurement's attributes). What a reader collects must be what the SDK's histogram would have
 * collected from the same measurements, in either temporality.
 */
describe('RequestDurations', () => {
  const get = { 'http.request.method': 'GET', 'http.response.status_code': 200, 'http.route': '/v1/catalogue/products' };
  const failed = { 'http.request.method': 'POST', 'http.response.status_code': 503, 'error.type': '503', 'http.route': '/v1/carts' };
  // Every boundary itself (an inclusive upper bound), either side of it, zero and beyond the last.
  const values = [0, 12, 0.0001, ...REQUEST_DURATION_BOUNDARIES.flatMap((bound) => [bound, bound - 1e-9, bound + 1e-9]), 0.0314, 2.71];

  /** The SDK's histogram and the service's series, fed the same measurements, read by one reader. */
  function both(temporality: AggregationTemporality) {
    const durations = new RequestDurations();
    const reader = new CollectingReader({
      aggregationTemporalitySelector: () => temporality,
      metricProducers: [durations.producer(() => temporality)],
    });
    const provider = new MeterProvider({ readers: [reader] });
    const histogram = provider.getMeter('sdk').createHistogram('sdk.duration', {
      unit: 's',
      advice: { explicitBucketBoundaries: REQUEST_DURATION_BOUNDARIES },
    });
    const series = new Map<Attributes, ReturnType<RequestDurations['series']>>();
    return {
      record(attributes: Attributes, seconds: number) {
        histogram.record(seconds, attributes);
        if (!series.has(attributes)) series.set(attributes, durations.series(attributes));
        series.get(attributes)!.record(seconds);
      },
      async collect() {
        const { resourceMetrics, errors } = await reader.collect();
        expect(errors).toEqual([]);
        return { sdk: points(resourceMetrics, 'sdk.duration'), ours: points(resourceMetrics, 'http.server.request.duration') };
      },
    };
  }

  /** A histogram's points by their attributes, with what both aggregations must agree on. */
  function points(metrics: ResourceMetrics, name: string) {
    const metric = metrics.scopeMetrics.flatMap((scope) => scope.metrics).find((one) => one.descriptor.name === name);
    if (!metric) return undefined;
    expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM);
    return {
      temporality: metric.aggregationTemporality,
      points: (metric.dataPoints as { attributes: Attributes; value: Histogram }[])
        .map(({ attributes, value }) => ({
          attributes,
          count: value.count,
          sum: value.sum,
          min: value.min,
          max: value.max,
          boundaries: value.buckets.boundaries,
          counts: value.buckets.counts,
        }))
        .sort((a, b) => String(a.attributes['http.request.method']).localeCompare(String(b.attributes['http.request.method']))),
    };
  }

  it('collects, cumulatively, what the SDK histogram collects from the same measurements', async () => {
    const pair = both(AggregationTemporality.CUMULATIVE);
    values.forEach((seconds, i) => pair.record(i % 3 === 0 ? failed : get, seconds));
    const first = await pair.collect();
    expect(first.ours).toEqual(first.sdk);
    expect(first.ours?.points.map((point) => point.count)).toEqual([
      values.length - Math.ceil(values.length / 3),
      Math.ceil(values.length / 3),
    ]);
    expect(first.ours?.points[0].counts.reduce((sum, count) => sum + count, 0)).toBe(first.ours?.points[0].count);

    pair.record(get, 0.02);
    const second = await pair.collect();
    expect(second.ours).toEqual(second.sdk);
    expect(second.ours?.temporality).toBe(AggregationTemporality.CUMULATIVE);
  });

  it('collects, as deltas, only what was measured since the last collection (min and max unknown)', async () => {
    const pair = both(AggregationTemporality.DELTA);
    values.forEach((seconds) => pair.record(get, seconds));
    pair.record(failed, 0.3);
    // A delta's sum is the difference of two running sums here, so it may differ from the SDK's in the last bits.
    const comparable = (collected: Awaited<ReturnType<typeof pair.collect>>['sdk']) =>
      collected && {
        ...collected,
        points: collected.points.map(({ min: _min, max: _max, sum, ...point }) => ({ ...point, sum: Number(sum?.toFixed(12)) })),
      };
    const first = await pair.collect();
    expect(first.ours?.temporality).toBe(AggregationTemporality.DELTA);
    expect(comparable(first.ours)).toEqual(comparable(first.sdk));

    pair.record(get, 0.02);
    pair.record(get, 7);
    const second = await pair.collect();
    expect(comparable(second.ours)).toEqual(comparable(second.sdk));
    expect(second.ours?.points).toHaveLength(1); // the POST series measured nothing new
    expect(second.ours?.points[0]).toMatchObject({ count: 2, min: undefined, max: undefined });
    expect(second.ours?.points[0].sum).toBeCloseTo(7.02, 12);

    expect(await pair.collect()).toEqual({ sdk: undefined, ours: undefined });
  });
});
