import { execFile } from 'node:child_process';
import { chmod, stat } from 'node:fs/promises';
import { platform } from 'node:os';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { SUPERUSER } from './embedded-postgres-credentials.js';
import { EmbeddedPostgresError } from './embedded-postgres-error.js';

const execFileAsync = promisify(execFile);

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * When running as root the server runs as OS user "postgres", which must be able to traverse every
 * directory above the cluster. Make dataDir itself traversable (it holds only 0600 files besides the
 * cluster); refuse with a clear message if an ancestor is closed.
 */
export async function ensureTraversableByPostgresUser(dataDir: string): Promise<void> {
  let uid: number;
  let gid: number;
  try {
    const [u, g] = await Promise.all([execFileAsync('id', ['-u', SUPERUSER]), execFileAsync('id', ['-g', SUPERUSER])]);
    uid = Number.parseInt(u.stdout, 10);
    gid = Number.parseInt(g.stdout, 10);
  } catch {
    return; // user not created yet; embedded-postgres creates it
  }
  const own = await stat(dataDir);
  if ((own.mode & 0o001) === 0 && own.uid === 0) await chmod(dataDir, (own.mode & 0o7777) | 0o001);

  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const traversable =
      (info.mode & 0o001) !== 0 || (info.uid === uid && (info.mode & 0o100) !== 0) || (info.gid === gid && (info.mode & 0o010) !== 0);
    if (!traversable) {
      throw new EmbeddedPostgresError(
        `Running as root, the embedded PostgreSQL server runs as OS user "${SUPERUSER}", which cannot enter ${dir} ` +
          `(mode ${(info.mode & 0o777).toString(8)}). Use a data directory outside it, or allow traversal (chmod o+x ${dir}).`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

/** A UTF-8 libc locale makes pg_trgm/unaccent treat accented letters as word characters. */
export async function localeFlags(): Promise<string[]> {
  if (platform() === 'win32') return ['--locale=C'];
  let available: Set<string>;
  try {
    const { stdout } = await execFileAsync('locale', ['-a']);
    available = new Set(stdout.split(/\r?\n/).map((name) => name.trim()));
  } catch {
    available = new Set();
  }
  for (const candidate of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) {
    if (available.has(candidate)) return [`--locale=${candidate}`];
  }
  // No UTF-8 libc locale: PostgreSQL's own provider still gives Unicode-aware lower()/upper().
  return ['--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];
}
