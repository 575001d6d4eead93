import { createConnection } from 'node:net';
import { EmbeddedPostgresError } from './embedded-postgres-error.js';

/** The embedded server listens on this address only. */
export const HOST = '127.0.0.1';
export const DEFAULT_EMBEDDED_PG_PORT = 54329;
const PORT_ENV_VAR = 'EMBEDDED_PG_PORT';

export function acceptsConnections(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = createConnection({ host: HOST, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolvePromise(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export function portInUse(port: number): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    `Cannot start the embedded PostgreSQL server: port ${port} on ${HOST} is already in use by another program. ` +
      `Set ${PORT_ENV_VAR} to a free port (or set DATABASE_URL to use an external database).`,
  );
}

export function assertValidPort(port: number): void {
  if (!isValidPort(port)) {
    throw new EmbeddedPostgresError(`Invalid embedded PostgreSQL port ${String(port)}: expected an integer 1-65535 (${PORT_ENV_VAR}).`);
  }
}

export function isValidPort(port: unknown): port is number {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
}
