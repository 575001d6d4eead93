import { chmod, chown, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'ssh2';
import { freePort } from '../ports.js';
import { accepts, descendantsOf, run, signalPid, startServer, stopServer, waitGone, waitUntil, type ServerProcess } from './processes.js';

/** A real OpenSSH server on loopback that serves SFTP only, to one OS user, from a directory of its own. */
export interface SshdPeer {
  host: '127.0.0.1';
  port: number;
  username: string;
  password: string;
  /** OpenSSH-format ed25519 private keys: an authorized one, an unrelated one, and an authorized one encrypted with `passphrase`. */
  privateKey: string;
  wrongPrivateKey: string;
  encryptedPrivateKey: string;
  passphrase: string;
  /** The user's writable directory, where an SFTP session starts (owned by the user). */
  root: string;
  pid: number;
  /** The host key's fingerprint as `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
  hostKeyFingerprint(): Promise<string>;
  /** Replaces the host key and makes sshd serve the new one (SIGHUP); resolves once it does. */
  regenerateHostKey(): Promise<void>;
  /** SIGKILL to sshd and its connection processes: open sessions drop at once. */
  kill(): void;
  /** SIGTERM by PID, waits for the exit, removes the temporary directories. Idempotent. */
  stop(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';
const USERNAME = 'datahub_sftp_test';
// Fixed: suites of overlapping test runs set the same password on the one shared OS user.
const PASSWORD = 'sftp-test-password-1';
const PASSPHRASE = 'sftp-test-key-passphrase';
const START_MS = 15_000;

export async function startSshd(): Promise<SshdPeer> {
  if (process.getuid?.() !== 0) throw new Error('startSshd needs root (sshd, useradd, chown)');
  const dir = await mkdtemp(join(tmpdir(), 'sshd-peer-'));
  const root = await mkdtemp(join(tmpdir(), 'sftp-root-'));
  let server: ServerProcess | undefined;
  try {
    // sshd reads authorized_keys with the user's rights: the directory must let the user in.
    await chmod(dir, 0o755);
    const user = await ensureSftpUser();
    await chown(root, user.uid, user.gid);
    await ensurePrivilegeSeparationDir();
    const hostKey = join(dir, 'host_key');
    const [, client, wrong, encrypted] = await Promise.all([
      generateKey(hostKey),
      generateKey(join(dir, 'client_key')),
      generateKey(join(dir, 'wrong_key')),
      generateKey(join(dir, 'encrypted_key'), PASSPHRASE),
    ]);
    const authorizedKeys = join(dir, 'authorized_keys');
    await writeFile(authorizedKeys, client.publicKey + encrypted.publicKey, { mode: 0o644 });
    const port = await freePort();
    const config = join(dir, 'sshd_config');
    await writeFile(config, sshdConfig({ port, hostKey, pidFile: join(dir, 'sshd.pid'), authorizedKeys, root }));
    // -D: stays in the foreground, so the PID is sshd's; -e: logs to stderr (the log file). SIGHUP
    // makes sshd re-execute itself, which it refuses to do unless started by an absolute path.
    server = startServer(SSHD, ['-D', '-e', '-f', config], join(dir, 'sshd.log'));
    await waitUntil(`sshd on 127.0.0.1:${port}`, () => accepts(port), [server], START_MS);
    return peer(server, { dir, root, port, hostKey, client: client.privateKey, wrong: wrong.privateKey, encrypted: encrypted.privateKey });
  } catch (error) {
    if (server) await stopServer(server);
    await rm(dir, { recursive: true, force: true });
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

interface PeerFiles {
  dir: string;
  root: string;
  port: number;
  hostKey: string;
  client: string;
  wrong: string;
  encrypted: string;
}

function peer(server: ServerProcess, files: PeerFiles): SshdPeer {
  let stopping: Promise<void> | undefined;
  const fingerprint = async () => (await run('ssh-keygen', ['-lf', `${files.hostKey}.pub`])).split(' ')[1];
  return {
    host: '127.0.0.1',
    port: files.port,
    username: USERNAME,
    password: PASSWORD,
    privateKey: files.client,
    wrongPrivateKey: files.wrong,
    encryptedPrivateKey: files.encrypted,
    passphrase: PASSPHRASE,
    root: files.root,
    pid: server.pid,
    hostKeyFingerprint: fingerprint,
    async regenerateHostKey() {
      const fresh = `${files.hostKey}.new`;
      await generateKey(fresh);
      await rename(`${fresh}.pub`, `${files.hostKey}.pub`);
      await rename(fresh, files.hostKey);
      const expected = await fingerprint();
      signalPid(server.pid, 'SIGHUP');
      await waitUntil(
        'sshd serving its new host key',
        async () => (await presentedFingerprint(files.port)) === expected,
        [server],
        START_MS,
      );
    },
    kill() {
      const sessions = descendantsOf(server.pid);
      signalPid(server.pid, 'SIGKILL');
      for (const pid of sessions) signalPid(pid, 'SIGKILL');
    },
    stop() {
      stopping ??= (async () => {
        // Each connection has a process of its own, which outlives the listener unless told.
        const sessions = descendantsOf(server.pid);
        await stopServer(server);
        for (const pid of sessions) signalPid(pid, 'SIGTERM');
        if (!(await waitGone(sessions))) for (const pid of sessions) signalPid(pid, 'SIGKILL');
        await rm(files.dir, { recursive: true, force: true });
        await rm(files.root, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

function sshdConfig(options: { port: number; hostKey: string; pidFile: string; authorizedKeys: string; root: string }): string {
  return `ListenAddress 127.0.0.1
Port ${options.port}
HostKey ${options.hostKey}
PidFile ${options.pidFile}
UsePAM no
PasswordAuthentication yes
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
AuthorizedKeysFile ${options.authorizedKeys}
StrictModes no
MaxStartups 100
Subsystem sftp internal-sftp
AllowUsers ${USERNAME}

Match User ${USERNAME}
  ForceCommand internal-sftp -d ${options.root}
  AllowTcpForwarding no
  AllowStreamLocalForwarding no
  AllowAgentForwarding no
  X11Forwarding no
  PermitTunnel no
  PermitTTY no
`;
}

/** The fingerprint of the host key sshd presents right now (its first key exchange only, no login). */
export function presentedFingerprint(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let seen: string | undefined;
    client.on('error', (error) => (seen ? resolve(seen) : reject(error)));
    client.on('ready', () => client.end());
    client.connect({
      host,
      port,
      username: USERNAME,
      readyTimeout: 5000,
      hostHash: 'sha256',
      hostVerifier: (hex: string) => {
        seen = fingerprintFromHex(hex);
        return false; // ends the handshake here: the fingerprint is all this wants
      },
    });
  });
}

/**
 * ssh2's `hostHash: 'sha256'` hands `hostVerifier` the digest in hex; OpenSSH (`ssh-keygen -lf`,
 * known_hosts prompts) writes the same digest as `SHA256:` and base64 without its `=` padding.
 * (Without `hostHash`, `hostVerifier` gets the raw key blob: hash it with SHA-256 the same way.)
 */
export function fingerprintFromHex(hex: string): string {
  return `SHA256:${Buffer.from(hex, 'hex').toString('base64').replace(/=+$/, '')}`;
}

async function generateKey(path: string, passphrase = ''): Promise<{ privateKey: string; publicKey: string }> {
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'storefront-test', '-f', path]);
  return { privateKey: await readFile(path, 'utf8'), publicKey: await readFile(`${path}.pub`, 'utf8') };
}

/** The sftp-only OS user (no home, no shell), created once per machine, with the fixed test password. */
async function ensureSftpUser(): Promise<{ uid: number; gid: number }> {
  let user = await lookUpUser(USERNAME);
  if (!user) {
    await retried(() =>
      run('useradd', ['--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', USERNAME]).catch(async (error) => {
        // Another test run created it meanwhile.
        if (!(await lookUpUser(USERNAME))) throw error;
      }),
    );
    user = await lookUpUser(USERNAME);
    if (!user) throw new Error(`useradd did not create ${USERNAME}`);
  }
  await retried(() => run('chpasswd', [], `${USERNAME}:${PASSWORD}\n`));
  return user;
}

async function lookUpUser(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const line = await run('getent', ['passwd', name]).catch(() => '');
  if (!line) return undefined;
  const [, , uid, gid] = line.trim().split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** useradd and chpasswd give up at once when another run holds the lock on /etc/passwd or /etc/shadow. */
async function retried<T>(work: () => Promise<T>, attempts = 10): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(200 * attempt);
    }
  }
}

/** sshd refuses to start without its privilege separation directory, root-owned and not writable by others. */
async function ensurePrivilegeSeparationDir(): Promise<void> {
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const info = await stat('/run/sshd');
  if (info.uid !== 0 || (info.mode & 0o022) !== 0) {
    await chown('/run/sshd', 0, 0);
    await chmod('/run/sshd', 0o755);
  }
}
