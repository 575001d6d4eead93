import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBuiltService, type BuiltService } from '../support/built-service.js';
import { startHaproxy, type HaproxyPeer } from '../support/peers/haproxy.js';
import { signalPid } from '../support/peers/processes.js';

/** Instances of the built service behind a real HAProxy, as a deployment runs them. */
export interface Topology {
  /** By the name HAProxy knows each one by (`i1`, `i2`…), in the order started. */
  instances: Map<string, BuiltService>;
  balancer: HaproxyPeer;
  /** Where clients send requests: the balancer. */
  url: string;
  /** Stops the balancer, then every instance still running, each by its PID. */
  stop(): Promise<void>;
}

/**
 * Starts `count` built services on `databaseUrl` (sharing `dataDir` as they would a file store) and
 * HAProxy in front of them; `env` is every instance's extra configuration (REDIS_URL…).
 */
export async function startTopology(
  databaseUrl: string,
  dataDir: string,
  count: number,
  env: Record<string, string> = {},
): Promise<Topology> {
  const names = Array.from({ length: count }, (_, index) => `i${index + 1}`);
  const starts = await Promise.allSettled(names.map(() => startBuiltService(databaseUrl, dataDir, env)));
  const started = starts.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = starts.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map(stopInstance));
    throw failed.reason;
  }
  const instances = new Map(names.map((name, index) => [name, started[index]]));
  let balancer: HaproxyPeer;
  try {
    balancer = await startHaproxy([...instances].map(([name, instance]) => ({ name, port: instance.port })));
  } catch (error) {
    await Promise.all(started.map(stopInstance));
    throw error;
  }
  return {
    instances,
    balancer,
    url: balancer.url,
    async stop() {
      await balancer.stop();
      await Promise.all(started.map(stopInstance));
    },
  };
}

/** SIGTERM to the instance's PID and a wait for its exit (it lets running jobs finish); SIGKILL past 15 s. */
export async function stopInstance(instance: BuiltService): Promise<void> {
  const { child } = instance;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  signalPid(child.pid!, 'SIGTERM');
  if ((await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])) === false) {
    signalPid(child.pid!, 'SIGKILL');
    await exited;
  }
}
