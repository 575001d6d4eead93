import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  type DataPoint,
  DataPointType,
  type Histogram,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

/** The upper bounds (inclusive) of `http.server.request.duration`'s buckets, in seconds: OpenTelemetry's advice for it. */
export const REQUEST_DURATION_BOUNDARIES = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const DESCRIPTOR = {
  name: 'http.server.request.duration',
  description: 'Duration of HTTP server requests.',
  unit: 's',
  valueType: ValueType.DOUBLE,
};

/** One series of the histogram (a route, method and status): its counts since the process started. */
export class DurationSeries {
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  readonly counts = new Array<number>(REQUEST_DURATION_BOUNDARIES.length + 1).fill(0);
  readonly startTime: HrTime = hrTime();

  constructor(readonly attributes: Attributes) {}

  record(seconds: number): void {
    this.count += 1;
    this.sum += seconds;
    if (seconds < this.min) this.min = seconds;
    if (seconds > this.max) this.max = seconds;
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BOUNDARIES.length && seconds > REQUEST_DURATION_BOUNDARIES[bucket]) bucket++;
    this.counts[bucket] += 1;
  }
}

/**
 * `http.server.request.duration`, aggregated as the SDK's explicit-bucket histogram does, in series the caller
 * makes once (per route, method and status) and records into directly; read by each metric reader through a
 * MetricProducer, the SDK's way in for measurements it does not aggregate itself. The SDK's own histogram finds a
 * measurement's series by its attributes on each record: sorted, turned into JSON and hashed, 720 ns and 8,500
 * instructions a measurement against 4 ns here (README "Telemetry", "Overhead").
 */
export class RequestDurations {
  private readonly all: DurationSeries[] = [];

  /** A new series of these attributes, reported from its first measurement on. */
  series(attributes: Attributes): DurationSeries {
    const series = new DurationSeries(attributes);
    this.all.push(series);
    return series;
  }

  /**
   * The histogram for one reader, in the temporality it asks for: cumulative (Prometheus, OTLP's default), or
   * delta (what was measured since this producer's last collection; min and max then unknown, so left out).
   */
  producer(temporality: () => AggregationTemporality): MetricProducer {
    const reported = new Map<DurationSeries, { count: number; sum: number; counts: number[]; at: HrTime }>();
    return {
      collect: async (): Promise<CollectionResult> => {
        const endTime = hrTime();
        const delta = temporality() === AggregationTemporality.DELTA;
        const dataPoints: DataPoint<Histogram>[] = [];
        for (const series of this.all) {
          const counts = series.counts.slice();
          if (!delta) {
            dataPoints.push({
              startTime: series.startTime,
              endTime,
              attributes: series.attributes,
              value: {
                buckets: { boundaries: REQUEST_DURATION_BOUNDARIES, counts },
                count: series.count,
                sum: series.sum,
                min: series.min,
                max: series.max,
              },
            });
            continue;
          }
          const last = reported.get(series);
          reported.set(series, { count: series.count, sum: series.sum, counts, at: endTime });
          if (last?.count === series.count) continue;
          dataPoints.push({
            startTime: last?.at ?? series.startTime,
            endTime,
            attributes: series.attributes,
            value: {
              buckets: { boundaries: REQUEST_DURATION_BOUNDARIES, counts: counts.map((count, i) => count - (last?.counts[i] ?? 0)) },
              count: series.count - (last?.count ?? 0),
              sum: series.sum - (last?.sum ?? 0),
            },
          });
        }
        const metrics =
          dataPoints.length === 0
            ? []
            : [
                {
                  descriptor: DESCRIPTOR,
                  aggregationTemporality: delta ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE,
                  dataPointType: DataPointType.HISTOGRAM as const,
                  dataPoints,
                },
              ];
        // The reader keeps its own resource and takes only the scope's metrics from a producer.
        return { resourceMetrics: { resource: emptyResource(), scopeMetrics: [{ scope: { name: 'storefront' }, metrics }] }, errors: [] };
      },
    };
  }
}
