import { CreateBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { accepts, run, startServer, stopServer, waitUntil, type ServerProcess } from './processes.js';

/** S3-compatible object storage on loopback: OpenStack Swift with its s3api middleware, all in a temporary directory. */
export interface ObjectStoragePeer {
  endpoint: string;
  region: 'us-east-1';
  /** A tempauth user that owns the buckets `createBucket` makes. */
  accessKeyId: string;
  secretAccessKey: string;
  /** A second user of the same account without rights on its buckets: its requests are refused with AccessDenied. */
  otherAccessKeyId: string;
  otherSecretAccessKey: string;
  createBucket(name: string): Promise<void>;
  /** The account, container, object and proxy servers. */
  pids: number[];
  /** SIGTERM to each server by PID, waits for their exits, removes the directory. Idempotent. */
  stop(): Promise<void>;
}

const ACCESS_KEY_ID = 'test:tester';
const SECRET_ACCESS_KEY = 'testing';
// Same account (`test`), no `.admin` group: tempauth lets it see the account but nothing in it.
const OTHER_ACCESS_KEY_ID = 'test:reader';
const OTHER_SECRET_ACCESS_KEY = 'reading';
const BACKENDS = ['account', 'container', 'object'] as const;
const START_MS = 30_000;
// Debian's Swift is a Python 3 package of the system interpreter, not of whatever `python3` is first on PATH.
const PYTHON = '/usr/bin/python3';

export async function startObjectStorage(): Promise<ObjectStoragePeer> {
  const dir = await mkdtemp(join(tmpdir(), 'swift-peer-'));
  const servers: ServerProcess[] = [];
  const stopAll = () => Promise.all(servers.map((server) => stopServer(server)));
  try {
    await mkdir(join(dir, 'dev', 'd1'), { recursive: true });
    const ports = { account: await freePort(), container: await freePort(), object: await freePort(), proxy: await freePort() };
    await writeFile(join(dir, 'swift.conf'), SWIFT_CONF);
    for (const name of BACKENDS) await writeFile(join(dir, `${name}-server.conf`), backendConf(dir, name, ports[name]));
    await writeFile(join(dir, 'proxy-server.conf'), proxyConf(dir, ports.proxy));
    await buildRings(dir, ports);
    for (const name of [...BACKENDS, 'proxy'] as const) {
      // -v: logs to stderr (the log file) as well, since there is no syslog to read them from.
      servers.push(startServer(`/usr/bin/swift-${name}-server`, [join(dir, `${name}-server.conf`), '-v'], join(dir, `${name}.log`)));
    }
    const endpoint = `http://127.0.0.1:${ports.proxy}`;
    const client = s3Client(endpoint, ACCESS_KEY_ID, SECRET_ACCESS_KEY);
    // ListBuckets needs the account server only: the container and object servers must listen too.
    const ready = async () => (await Promise.all(BACKENDS.map((name) => accepts(ports[name])))).every(Boolean);
    await waitUntil(`Swift's servers on ${Object.values(ports).join(', ')}`, ready, servers, START_MS);
    await waitUntil(`Swift's S3 API on ${endpoint}`, async () => (await client.send(new ListBucketsCommand({})), true), servers, START_MS);
    let stopping: Promise<void> | undefined;
    return {
      endpoint,
      region: 'us-east-1',
      accessKeyId: ACCESS_KEY_ID,
      secretAccessKey: SECRET_ACCESS_KEY,
      otherAccessKeyId: OTHER_ACCESS_KEY_ID,
      otherSecretAccessKey: OTHER_SECRET_ACCESS_KEY,
      pids: servers.map((server) => server.pid),
      async createBucket(name) {
        // A Swift just started (or a loaded machine) answers 503 while its backends warm up.
        const deadline = Date.now() + START_MS;
        for (;;) {
          try {
            return void (await client.send(new CreateBucketCommand({ Bucket: name })));
          } catch (error) {
            const unavailable = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 503;
            if (!unavailable || Date.now() > deadline) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
      },
      stop() {
        stopping ??= (async () => {
          client.destroy();
          await stopAll();
          await rm(dir, { recursive: true, force: true });
        })();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function s3Client(endpoint: string, accessKeyId: string, secretAccessKey: string): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
  });
}

const SWIFT_CONF = `[swift-hash]
swift_hash_path_suffix = testsuffix
swift_hash_path_prefix = testprefix

[storage-policy:0]
name = Policy-0
default = yes
`;

/** Settings every server shares: loopback, one process (`workers = 0`, so the PID is the server's), this directory. */
function commonSettings(dir: string, port: number): string {
  return `bind_ip = 127.0.0.1
bind_port = ${port}
workers = 0
user = ${userInfo().username}
swift_dir = ${dir}
log_level = WARNING`;
}

function backendConf(dir: string, name: (typeof BACKENDS)[number], port: number): string {
  return `[DEFAULT]
devices = ${join(dir, 'dev')}
mount_check = false
disable_fallocate = true
${commonSettings(dir, port)}

[pipeline:main]
pipeline = ${name}-server

[app:${name}-server]
use = egg:swift#${name}

[${name}-replicator]

[${name}-auditor]

[${name}-updater]

[container-sync]
`;
}

/**
 * s3api needs slo after the auth middleware for multipart uploads. tempauth needs a memcache: one that
 * is not there does (every request is authenticated afresh), once its complaints are kept out of the log.
 */
function proxyConf(dir: string, port: number): string {
  return `[DEFAULT]
${commonSettings(dir, port)}

[pipeline:main]
pipeline = catch_errors proxy-logging cache s3api tempauth slo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:s3api]
use = egg:swift#s3api

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SECRET_ACCESS_KEY} .admin
user_test_reader = ${OTHER_SECRET_ACCESS_KEY}

[filter:slo]
use = egg:swift#slo

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:1
set log_level = CRITICAL

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:proxy-logging]
use = egg:swift#proxy_logging
`;
}

/**
 * One ring per backend: 2^10 partitions, one replica, one device. Built with Swift's RingBuilder in
 * one Python process, what `swift-ring-builder create/add/rebalance` does in nine (about 0.5 s instead of 4).
 */
async function buildRings(dir: string, ports: Record<(typeof BACKENDS)[number], number>): Promise<void> {
  const script = `
import json, sys
from swift.common.ring import RingBuilder
dir, ports = sys.argv[1], json.loads(sys.argv[2])
for name, port in ports.items():
    builder = RingBuilder(10, 1, 1)
    builder.add_dev({'region': 1, 'zone': 1, 'ip': '127.0.0.1', 'port': port, 'device': 'd1', 'weight': 100})
    builder.rebalance()
    builder.get_ring().save('%s/%s.ring.gz' % (dir, name))
`;
  await run(PYTHON, ['-c', script, dir, JSON.stringify({ account: ports.account, container: ports.container, object: ports.object })]);
}
