import type { Server } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/harness.js';

/**
 * Sends one keep-alive request on a connection of its own and waits for the server to close it: answers
 * the `Keep-Alive` header it was given and how long the idle connection then stayed open.
 */
function idleClose(base: string): Promise<{ keepAlive: string | undefined; idleMs: number }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let received = '';
    let answeredAt: number | undefined;
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`GET /health/live HTTP/1.1\r\nHost: ${hostname}\r\nConnection: keep-alive\r\n\r\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
      const [head, body] = received.split('\r\n\r\n');
      const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1]);
      if (body !== undefined && Buffer.byteLength(body) >= length) answeredAt ??= Date.now();
    });
    socket.on('close', () => {
      if (answeredAt === undefined) return reject(new Error(`closed before the answer: ${received}`));
      resolve({ keepAlive: /^keep-alive: *(.*)$/im.exec(received)?.[1]?.trim(), idleMs: Date.now() - answeredAt });
    });
    socket.on('error', reject);
  });
}

describe('KEEP_ALIVE_TIMEOUT_SECONDS', () => {
  describe('set to 2', () => {
    const t = useTestApp({ KEEP_ALIVE_TIMEOUT_SECONDS: '2' });

    it('reaches Node’s server, is announced, and an idle keep-alive connection is closed by the server after it, not before', async () => {
      const base = await t.listen();
      expect((t.app.getHttpServer() as Server).keepAliveTimeout).toBe(2000);
      const { keepAlive, idleMs } = await idleClose(base);
      expect(keepAlive).toBe('timeout=2');
      // Node 24 closes the idle socket keepAliveTimeoutBuffer (1 s) after the timeout it announces: never before it.
      const server = t.app.getHttpServer() as Server & { keepAliveTimeoutBuffer: number };
      expect(idleMs).toBeGreaterThanOrEqual(1900);
      expect(idleMs).toBeLessThan(2000 + server.keepAliveTimeoutBuffer + 1500);
    });
  });

  describe('by default', () => {
    const t = useTestApp();

    it('is 72 s: longer than a balancer’s idle timeout (HAProxy’s timeout http-keep-alive in the topology is 60 s), so the balancer closes first', async () => {
      await t.listen();
      expect((t.app.getHttpServer() as Server).keepAliveTimeout).toBe(72_000);
    });
  });
});
