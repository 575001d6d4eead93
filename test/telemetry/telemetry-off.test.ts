import { metrics, trace } from '@opentelemetry/api';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/infra/config/app-config.js';
import { startTelemetry } from '../../src/infra/telemetry/telemetry-sdk.js';
import { startBuiltService, type BuiltService } from '../support/built-service.js';
import { accepts } from '../support/peers/processes.js';
import { freePort } from '../support/ports.js';
import { createIsolatedDatabase } from '../support/test-app.js';

/** The TCP ports the process listens on, as `ss` lists them. */
function listeningPorts(pid: number): number[] {
  const lines = execFileSync('ss', ['-Hltnp'], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(`pid=${pid},`)).map((line) => Number(line.trim().split(/\s+/)[3].split(':').pop()));
}

/** Issue 29, item 8: telemetry is off by default, at no cost: with neither variable set no SDK starts. */
describe('telemetry off', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'telemetry-off-'));
  let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
  let service: BuiltService | undefined;
  beforeAll(async () => {
    database = await createIsolatedDatabase();
  });
  afterAll(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await new Promise((resolve) => service!.child.once('exit', resolve));
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('registers no tracer or meter provider without an endpoint or METRICS_PORT, nor with OTEL_SDK_DISABLED', async () => {
    expect(await startTelemetry(loadConfig({}), {})).toBeNull();
    const metricsPort = await freePort();
    const disabled = loadConfig({ METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' });
    const env = { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(await startTelemetry(disabled, env)).toBeNull();
    expect(await accepts(metricsPort)).toBe(false);
    // The API's defaults: spans that record nothing, instruments that keep nothing.
    expect(trace.getTracer('check').startSpan('check').isRecording()).toBe(false);
    expect(metrics.getMeterProvider().constructor.name).toBe('NoopMeterProvider');
  });

  it('the built service serves HTTP only: no metrics server', async () => {
    service = await startBuiltService(database.url, dataDir);
    expect(listeningPorts(service.child.pid!)).toEqual([service.port]);
  }, 90_000);
});
