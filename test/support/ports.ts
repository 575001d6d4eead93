import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now, for a server a test starts. */
export function freePort(): Promise<number> {
  const server = createServer();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }),
  );
}
