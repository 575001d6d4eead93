import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { startServer, stopServer, waitUntil, type ServerProcess } from './processes.js';

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
/** Every answer names the server that gave it, so a test sees where round robin sent each request. */
export const SERVED_BY = 'x-served-by';
/** How often each server is checked: two failed checks take it out, two passed ones bring it back. */
export const CHECK_INTERVAL_MS = 500;
/**
 * How long HAProxy keeps an idle client connection open: shorter than the service's keep-alive timeout
 * (KEEP_ALIVE_TIMEOUT_SECONDS, 72 s), so that the balancer closes an idle connection first.
 */
export const CLIENT_KEEP_ALIVE_SECONDS = 60;
const START_MS = 15_000;

function haproxyConfig(port: number, servers: HaproxyServer[], statsSocket: string): string {
  return `global
  maxconn 2000
  stats socket ${statsSocket} mode 600 level admin

defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  timeout http-keep-alive ${CLIENT_KEEP_ALIVE_SECONDS}s
  timeout check 1s
  # a connection a dead server refused is tried again on another one (nothing reached the dead one)
  retries 2
  option redispatch 1

frontend storefront
  bind 127.0.0.1:${port}
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /health/ready
  http-check expect status 200
  http-response set-header ${SERVED_BY} %[srv_name]
${servers.map((server) => `  server ${server.name} 127.0.0.1:${server.port} check inter ${CHECK_INTERVAL_MS}ms fall 2 rise 2`).join('\n')}
`;
}

export async function startHaproxy(servers: HaproxyServer[]): Promise<HaproxyPeer> {
  const dir = await mkdtemp(join(tmpdir(), 'haproxy-peer-'));
  let server: ServerProcess | undefined;
  try {
    const port = await freePort();
    const config = join(dir, 'haproxy.cfg');
    const socket = join(dir, 'admin.sock');
    await writeFile(config, haproxyConfig(port, servers, socket));
    // -db: in the foreground, so the PID is HAProxy's own, and its warnings (a server going DOWN) in its log.
    server = startServer(HAPROXY, ['-db', '-f', config], join(dir, 'haproxy.log'));
    const states = () => serverStates(socket);
    await waitUntil(
      `HAProxy on 127.0.0.1:${port} with every server UP`,
      async () => Object.values(await states()).filter((state) => state === 'UP').length === servers.length,
      [server],
      START_MS,
    );
    const running = server;
    let stopping: Promise<void> | undefined;
    return {
      port,
      pid: running.pid,
      url: `http://127.0.0.1:${port}`,
      states,
      stop() {
        stopping ??= stopServer(running).then(() => rm(dir, { recursive: true, force: true }));
        return stopping;
      },
    };
  } catch (error) {
    if (server) await stopServer(server);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
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
