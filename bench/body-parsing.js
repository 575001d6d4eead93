// `node bench/body-parsing.js`: what the load generator itself allows for text and binary bodies.
// Bare Fastify serves 30 KB of JSON text and 5.2 KB of random bytes (the size of a gzip-compressed
// catalogue page), with and without `Content-Encoding: gzip`; autocannon measures each as bench/run.js
// does. A binary body much slower than a larger text one means a gzip scenario measures autocannon.
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';

const text = Buffer.from(
  JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `product ${i}`, description: 'words '.repeat(14) })) }),
);
const binary = randomBytes(5200);
const app = Fastify();
app.get('/text', (request, reply) => reply.type('application/json').send(text));
app.get('/binary', (request, reply) => reply.type('application/octet-stream').send(binary));
app.get('/gzip', (request, reply) => reply.header('Content-Encoding', 'gzip').type('application/json').send(binary));
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
for (const [path, bytes] of [
  ['/text', text.length],
  ['/binary', binary.length],
  ['/gzip', binary.length],
]) {
  const result = await autocannon({ url: base + path, connections: 50, duration: 5, headers: { 'accept-encoding': 'gzip, deflate, br' } });
  process.stdout.write(
    `${path.padEnd(8)} ${String(bytes).padStart(6)} bytes  ${Math.round(result.requests.average)} req/s  p99 ${result.latency.p99} ms\n`,
  );
}
await app.close();
