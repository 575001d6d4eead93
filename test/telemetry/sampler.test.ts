import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { RequestRatioSampler } from '../../src/infra/telemetry/tracing.js';

/** The default sampler of a trace's first span (issue 29, item 10): jobs always, requests and the rest by ratio. */
describe('RequestRatioSampler', () => {
  const traceIds = Array.from({ length: 2000 }, () => randomBytes(16).toString('hex'));

  it("keeps a request's trace, and any other but a job's, for its ratio of trace ids", () => {
    for (const kind of [SpanKind.SERVER, SpanKind.PRODUCER, SpanKind.CLIENT, SpanKind.INTERNAL]) {
      const kept = traceIds.filter(
        (traceId) =>
          new RequestRatioSampler(0.1).shouldSample(ROOT_CONTEXT, traceId, 'GET /x', kind).decision === SamplingDecision.RECORD_AND_SAMPLED,
      );
      expect(kept.length).toBeGreaterThan(100);
      expect(kept.length).toBeLessThan(300);
      expect(new RequestRatioSampler(0).shouldSample(ROOT_CONTEXT, traceIds[5], 'GET /x', kind).decision).toBe(SamplingDecision.NOT_RECORD);
    }
  });

  it("keeps every job's trace", () => {
    for (const traceId of traceIds.slice(0, 100)) {
      expect(new RequestRatioSampler(0).shouldSample(ROOT_CONTEXT, traceId, 'process insights.export', SpanKind.CONSUMER).decision).toBe(
        SamplingDecision.RECORD_AND_SAMPLED,
      );
    }
  });
});
