import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { RequestRatioSampler } from '../../src/infra/telemetry/tracing.js';

/** The default sampler of a trace's first span (issue 29, item 10): requests by ratio, everything else always. */
describe('RequestRatioSampler', () => {
  const traceIds = Array.from({ length: 2000 }, () => randomBytes(16).toString('hex'));

  it("keeps a request's trace for its ratio of trace ids", () => {
    const kept = traceIds.filter(
      (traceId) =>
        new RequestRatioSampler(0.1).shouldSample(ROOT_CONTEXT, traceId, 'GET /x', SpanKind.SERVER).decision ===
        SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(300);
    expect(new RequestRatioSampler(0).shouldSample(ROOT_CONTEXT, traceIds[5], 'GET /x', SpanKind.SERVER).decision).toBe(
      SamplingDecision.NOT_RECORD,
    );
  });

  it('keeps every job and every other first span', () => {
    for (const kind of [SpanKind.CONSUMER, SpanKind.PRODUCER, SpanKind.CLIENT, SpanKind.INTERNAL]) {
      expect(new RequestRatioSampler(0).shouldSample(ROOT_CONTEXT, traceIds[7], 'process insights.export', kind).decision).toBe(
        SamplingDecision.RECORD_AND_SAMPLED,
      );
    }
  });
});
