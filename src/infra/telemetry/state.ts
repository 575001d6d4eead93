/** What startTelemetry turned on in this process; nothing until it runs (and never in a test's in-process app). */
export const telemetryState = { tracing: false, metrics: false };
