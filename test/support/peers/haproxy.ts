import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { haproxyConfig } from './configs.js';
import { startInDirectory, startServer, waitUntil } from './processes.js';

export { CHECK_INTERVAL_MS, SERVED_BY } from './configs.js';

/** A real HAProxy on loopback: round robin over the given servers, each health-checked on /health/ready. */
export interface HaproxyPeer {
  port: number;
  pid: number;
  /** http://127.0.0.1:port */
  url: string;
  /** Each server's state as HAProxy sees it now, by name: `UP`, `DOWN`, `UP 1/2` (going down)… */
  states(): Promise<Record<string, string>>;
  /** SIGTERM by PID, waits for the exit, removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

export interface HaproxyServer {
  name: string;
  port: number;
}

const HAPROXY = '/usr/sbin/haproxy';
const START_MS = 15_000;

export async function startHaproxy(servers: HaproxyServer[]): Promise<HaproxyPeer> {
  return startInDirectory('haproxy-peer-', async (dir, keep) => {
    const port = await freePort();
    const config = join(dir, 'haproxy.cfg');
    const socket = join(dir, 'admin.sock');
    await writeFile(config, haproxyConfig({ port, servers, statsSocket: socket }));
    // -db: in the foreground, so the PID is HAProxy's own, and its warnings (a server going DOWN) in its log.
    const server = keep(startServer(HAPROXY, ['-db', '-f', config], join(dir, 'haproxy.log')));
    const states = () => serverStates(socket);
    await waitUntil(
      `HAProxy on 127.0.0.1:${port} with every server UP`,
      async () => Object.values(await states()).filter((state) => state === 'UP').length === servers.length,
      [server],
      START_MS,
    );
    return { port, pid: server.pid, url: `http://127.0.0.1:${port}`, states };
  });
}

/** The backend's servers and their status, from `show stat` on HAProxy's runtime API. */
async function serverStates(socket: string): Promise<Record<string, string>> {
  const csv = await runtimeCommand(socket, 'show stat');
  const [header, ...lines] = csv.trim().split('\n');
  const columns = header.replace(/^# /, '').split(',');
  const at = (name: string) => columns.indexOf(name);
  const states: Record<string, string> = {};
  for (const line of lines) {
    const fields = line.split(',');
    if (fields[at('pxname')] === 'instances' && !['FRONTEND', 'BACKEND'].includes(fields[at('svname')])) {
      states[fields[at('svname')]] = fields[at('status')];
    }
  }
  return states;
}

function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    const connection = connect(socket, () => connection.end(`${command}\n`));
    connection.setEncoding('utf8');
    connection.on('data', (chunk) => (answer += chunk));
    connection.on('end', () => resolve(answer));
    connection.on('error', reject);
  });
}
