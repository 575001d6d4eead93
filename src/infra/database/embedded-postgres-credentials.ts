import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DEFAULT_EMBEDDED_PG_PORT, HOST, isValidPort } from './embedded-postgres-address.js';
import { EmbeddedPostgresError, errorMessage, isErrno } from './embedded-postgres-error.js';

export const DATABASE = 'storefront';
export const SUPERUSER = 'postgres';

export interface StoredCredentials {
  user: string;
  password: string;
  port: number;
  database: string;
}

export async function loadOrCreateCredentials(
  file: string,
  requestedPort: number | undefined,
  initialised: boolean,
): Promise<StoredCredentials> {
  let stored: StoredCredentials | undefined;
  try {
    stored = parseCredentials(JSON.parse(await readFile(file, 'utf8')), file);
  } catch (error) {
    if (!isErrno(error, 'ENOENT')) {
      if (error instanceof EmbeddedPostgresError) throw error;
      throw new EmbeddedPostgresError(`Cannot read embedded PostgreSQL credentials from ${file}: ${errorMessage(error)}`, { cause: error });
    }
  }

  if (!stored) {
    if (initialised) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL cluster in ${join(dirname(file), 'postgres')} exists but its credentials file ${file} is missing, ` +
          `so its password is unknown. Restore the file, or delete the cluster directory to start from an empty database.`,
      );
    }
    stored = {
      user: SUPERUSER,
      password: randomBytes(24).toString('base64url'),
      port: requestedPort ?? DEFAULT_EMBEDDED_PG_PORT,
      database: DATABASE,
    };
    await writeCredentials(file, stored);
    return stored;
  }

  if (requestedPort !== undefined && requestedPort !== stored.port) {
    stored = { ...stored, port: requestedPort };
    await writeCredentials(file, stored);
  } else {
    // Keep the secret private even if the file was copied around with a looser mode.
    const mode = (await stat(file)).mode & 0o777;
    if (mode !== 0o600) await chmod(file, 0o600);
  }
  return stored;
}

function parseCredentials(value: unknown, file: string): StoredCredentials {
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const { user, password, port } = record;
    const database = record['database'] ?? DATABASE;
    if (typeof user === 'string' && user && typeof password === 'string' && password && typeof database === 'string' && isValidPort(port)) {
      return { user, password, port, database };
    }
  }
  throw new EmbeddedPostgresError(`Embedded PostgreSQL credentials file ${file} is malformed (expected {"user","password","port"}).`);
}

async function writeCredentials(file: string, credentials: StoredCredentials): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600); // in case the umask or a leftover file interfered
  await rename(temp, file);
}

export function buildUrl(credentials: StoredCredentials, port: number): string {
  const user = encodeURIComponent(credentials.user);
  const password = encodeURIComponent(credentials.password);
  return `postgres://${user}:${password}@${HOST}:${port}/${encodeURIComponent(credentials.database)}`;
}
