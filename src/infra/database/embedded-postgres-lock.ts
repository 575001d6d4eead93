import { constants as fsConstants } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { EmbeddedPostgresError, isErrno } from './embedded-postgres-error.js';
import { isLiveProcess } from './embedded-postgres-postmaster.js';

// Start-up lock shared by all processes using the same dataDir

const LOCK_TIMEOUT_MS = 120_000;

/** Lock files held by this process (a lock file naming our own PID but absent here is a recycled-PID leftover). */
const heldLocks = new Set<string>();

export async function acquireLock(lockFile: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  for (;;) {
    try {
      const handle = await open(lockFile, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
      try {
        await handle.writeFile(String(process.pid));
      } finally {
        await handle.close();
      }
      heldLocks.add(lockFile);
      return async () => {
        heldLocks.delete(lockFile);
        await unlink(lockFile).catch(() => undefined);
      };
    } catch (error) {
      if (!isErrno(error, 'EEXIST')) throw error;
    }

    const holder = await readLockHolder(lockFile);
    if (holder === 'stale') {
      await unlink(lockFile).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(
        `Timed out waiting for ${lockFile} (held by PID ${holder ?? '?'}) while another process starts the embedded PostgreSQL server. ` +
          `Delete the file if that process no longer exists.`,
      );
    }
    await sleep(100);
  }
}

async function readLockHolder(lockFile: string): Promise<number | 'stale' | undefined> {
  try {
    const [content, info] = await Promise.all([readFile(lockFile, 'utf8'), stat(lockFile)]);
    const pid = Number.parseInt(content.trim(), 10);
    if (Number.isInteger(pid) && pid > 0) {
      if (pid === process.pid) return heldLocks.has(lockFile) ? pid : 'stale';
      return (await isLiveProcess(pid)) ? pid : 'stale';
    }
    // Empty: the holder is between creating and writing it, or died right there.
    return Date.now() - info.mtimeMs > 10_000 ? 'stale' : undefined;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined; // released meanwhile; retry at once
    throw error;
  }
}
