import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { RateLimitedRequestSampler } from '../../src/infra/telemetry/tracing.js';

/** The default sampler of a trace's first span (issue 29, item 10): jobs always, requests and the rest up to a rate. */
describe('RateLimitedRequestSampler', () => {
  const traceId = () => randomBytes(16).toString('hex');
  /** A sampler of `perSecond` on a clock the test moves, and how many of `count` spans of `kind` it keeps now. */
  function sampler(perSecond: number) {
    let milliseconds = 0;
    const instance = new RateLimitedRequestSampler(perSecond, () => milliseconds);
    return {
      advance: (ms: number) => void (milliseconds += ms),
      kept: (count: number, kind = SpanKind.SERVER) =>
        Array.from({ length: count }, () => instance.shouldSample(ROOT_CONTEXT, traceId(), 'GET /x', kind).decision).filter(
          (decision) => decision === SamplingDecision.RECORD_AND_SAMPLED,
        ).length,
    };
  }

  it("keeps every request's trace while there are fewer than its rate a second", () => {
    const light = sampler(10);
    for (let second = 0; second < 5; second++) {
      expect(light.kept(10)).toBe(10);
      light.advance(1000);
    }
  });

  it('keeps its rate a second of a heavy load, a second of quiet refilling a burst, and never more', () => {
    const heavy = sampler(10);
    expect(heavy.kept(10_000)).toBe(10);
    for (let step = 0; step < 20; step++) {
      heavy.advance(50);
      expect(heavy.kept(500)).toBe(step % 2 === 1 ? 1 : 0);
    }
    heavy.advance(60_000);
    expect(heavy.kept(1000)).toBe(10);
  });

  it('spends one budget over every kind of first span but a job', () => {
    const mixed = sampler(10);
    for (const kind of [SpanKind.SERVER, SpanKind.PRODUCER, SpanKind.CLIENT, SpanKind.INTERNAL]) expect(mixed.kept(2, kind)).toBe(2);
    expect(mixed.kept(100, SpanKind.INTERNAL)).toBe(2);
  });

  it('tells whether it would keep a trace now without spending its budget', () => {
    let milliseconds = 0;
    const instance = new RateLimitedRequestSampler(2, () => milliseconds);
    const decide = () => instance.shouldSample(ROOT_CONTEXT, traceId(), 'GET /x', SpanKind.SERVER).decision;
    for (let i = 0; i < 5; i++) expect(instance.mayKeep()).toBe(true);
    expect([decide(), decide()]).toEqual([SamplingDecision.RECORD_AND_SAMPLED, SamplingDecision.RECORD_AND_SAMPLED]);
    expect(instance.mayKeep()).toBe(false);
    expect(decide()).toBe(SamplingDecision.NOT_RECORD);
    milliseconds += 500;
    expect(instance.mayKeep()).toBe(true);
    expect(decide()).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });

  it("keeps every job's trace, whatever the budget left", () => {
    const none = sampler(0);
    expect(none.kept(100)).toBe(0);
    expect(none.kept(100, SpanKind.CONSUMER)).toBe(100);
  });
});
