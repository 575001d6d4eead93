import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { startInDirectory, startServer, waitUntil } from './processes.js';

/** A real Prometheus (Debian's) on loopback, scraping the given targets every second. */
export interface PrometheusPeer {
  url: string;
  pid: number;
  /** An instant query through the HTTP API (/api/v1/query): each series' labels and value. */
  query(expression: string): Promise<{ labels: Record<string, string>; value: number }[]>;
  /** SIGTERM by PID, waits for the exit, removes its config and data. Idempotent. */
  stop(): Promise<void>;
}

const PROMETHEUS = '/usr/bin/prometheus';
const START_MS = 30_000;

export async function startPrometheus(targets: string[]): Promise<PrometheusPeer> {
  return startInDirectory('prometheus-peer-', async (dir, keep) => {
    const port = await freePort();
    const config = join(dir, 'prometheus.yml');
    await writeFile(
      config,
      `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: storefront
    static_configs:
      - targets: [${targets.map((target) => JSON.stringify(target)).join(', ')}]
`,
    );
    const server = keep(
      startServer(
        PROMETHEUS,
        [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
        join(dir, 'prometheus.log'),
      ),
    );
    const url = `http://127.0.0.1:${port}`;
    await waitUntil(`prometheus on ${url}`, async () => (await fetch(`${url}/-/ready`)).ok, [server], START_MS);
    return { url, pid: server.pid, query: (expression: string) => query(url, expression) };
  });
}

/** An instant query through the HTTP API: each series' labels and value. */
async function query(url: string, expression: string): Promise<{ labels: Record<string, string>; value: number }[]> {
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expression)}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  if (body.status !== 'success') throw new Error(`prometheus refused ${expression}: ${body.error}`);
  return body.data.result.map((series) => ({ labels: series.metric, value: Number(series.value[1]) }));
}
