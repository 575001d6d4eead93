/** What startTelemetry turned on in this process; nothing until it runs (and never in a test's in-process app). */
export const telemetryState = {
  tracing: false,
  metrics: false,
  /**
   * Whether the sampler might keep a new request's trace now. With the default sampler, whose decision needs no trace
   * id, a request it would leave out is given no span at all (most of them, under load: making and dropping one cost
   * 1.5 % of a cached catalogue read's CPU); with any other, every request gets one for the sampler to judge.
   */
  mayKeepRequestTrace: (): boolean => true,
};
