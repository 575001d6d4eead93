// The ceiling: a bare Fastify app (the same fastify the service runs on, from node_modules) with one
// route. Whatever the service reaches is measured against what this reaches on the same machine,
// under the same load generator, in the same run.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ hello: 'world' }));

const port = Number(process.env.PORT ?? 3999);
await app.listen({ port, host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => app.close().then(() => process.exit(0)));
}
