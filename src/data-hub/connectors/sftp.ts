import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import ssh2, { type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { EgressPolicy } from '../../infra/egress/egress-policy.js';
import { tracedCalls } from '../../infra/telemetry/tracing.js';
import { SftpConfigDto, SftpCredentialsDto } from './connector-config.dto.js';
import { ConnectionFailure } from './connection-failure.js';
import {
  newestFileFields,
  probeFileLocation,
  type ConnectionTarget,
  type Connector,
  type FieldsRequest,
  type FileLocation,
  type RemoteFile,
  type TestResult,
  usingLocation,
} from './connector.js';
import { checkedAddress, NETWORK_ERROR_CODES } from './egress.js';

export interface SftpConfig {
  host: string;
  port?: number;
  username: string;
  basePath: string;
}

export type SftpCredentials = { password: string } | { privateKey: string; passphrase?: string };

/** SFTP status codes (draft-ietf-secsh-filexfer-02, section 7) the merchant can act on. */
const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;
/** What OpenSSH answers for any other errno, a full disk (ENOSPC, EDQUOT) and a read-only file system (EROFS) among them. */
const SFTP_FAILURE = 4;

/** A host key as `ssh-keygen -lf` names it: its algorithm and `SHA256:` + unpadded base64 of its SHA-256. */
export function hostKeyOf(key: Buffer): { algorithm: string; fingerprint: string } {
  const length = key.readUInt32BE(0);
  return {
    algorithm: key.subarray(4, 4 + length).toString('latin1'),
    fingerprint: `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`,
  };
}

/** Whether a private key parses (and opens with its passphrase): checked when credentials are set. */
export function privateKeyOpens(privateKey: string, passphrase?: string): boolean {
  const parsed = ssh2.utils.parseKey(privateKey, passphrase);
  return !(parsed instanceof Error) && !(Array.isArray(parsed) && parsed.length === 0);
}

/**
 * SFTP through ssh2 (the SSH library most Node projects use, pure JavaScript). The host is checked by
 * the egress policy and connected to at the checked address. The server's host key is pinned at the
 * first passed test; a different key later refuses the connection before anything is sent, naming both
 * fingerprints, until the merchant clears the pin.
 */
@Injectable()
export class SftpConnector implements Connector {
  readonly kind = 'sftp';
  readonly configType = SftpConfigDto;
  readonly credentialsType = SftpCredentialsDto;

  constructor(private readonly egress: EgressPolicy) {}

  async test(target: ConnectionTarget, signal: AbortSignal): Promise<TestResult> {
    const { location, hostKey } = await this.connect(target, signal);
    await usingLocation(location, probeFileLocation);
    return target.hostKey ? {} : { hostKey };
  }

  async fields(target: ConnectionTarget, request: Required<FieldsRequest>, signal: AbortSignal) {
    const { location } = await this.connect(target, signal);
    return usingLocation(location, (opened) => newestFileFields(opened, request.template, request.format));
  }

  async location(target: ConnectionTarget, signal: AbortSignal): Promise<FileLocation> {
    return (await this.connect(target, signal)).location;
  }

  /** An SFTP session at the connection's base path, ended when `signal` aborts. */
  async connect(
    target: ConnectionTarget,
    signal: AbortSignal,
  ): Promise<{ location: FileLocation; hostKey: { algorithm: string; fingerprint: string } }> {
    const config = target.config as SftpConfig;
    const credentials = target.credentials as SftpCredentials;
    const address = await checkedAddress(this.egress, config.host);
    const client = new ssh2.Client();
    let presented: { algorithm: string; fingerprint: string } | undefined;
    const end = () => client.end();
    signal.addEventListener('abort', end, { once: true });
    // Whatever is in flight when the connection drops fails with it: ssh2 does not always call back
    // (a channel being opened, a write stream), so every operation races this.
    const lost = new Promise<never>((_resolve, reject) =>
      client.once('close', () => {
        signal.removeEventListener('abort', end);
        reject(new ConnectionFailure('connection_lost'));
      }),
    );
    lost.catch(ignore);
    // Past the handshake, a dropped connection is answered through `lost`; ssh2 also emits it here and
    // on the SFTP channel, where nothing else would listen.
    client.on('error', ignore);
    const options: ConnectConfig = {
      host: address,
      port: config.port ?? 22,
      username: config.username,
      readyTimeout: 10_000,
      keepaliveInterval: 5_000,
      hostVerifier: (key: Buffer) => {
        presented = hostKeyOf(key);
        return !target.hostKey || target.hostKey.fingerprint === presented.fingerprint;
      },
      ...('privateKey' in credentials
        ? { privateKey: credentials.privateKey, passphrase: credentials.passphrase }
        : { password: credentials.password }),
    };
    try {
      await Promise.race([
        new Promise<void>((resolve, reject) => {
          client.once('ready', resolve);
          client.once('error', reject);
          client.connect(options);
        }),
        lost,
      ]);
    } catch (error) {
      client.end();
      if (presented && target.hostKey && presented.fingerprint !== target.hostKey.fingerprint) {
        throw new ConnectionFailure('host_key_mismatch', {
          en: `Pinned: ${target.hostKey.fingerprint}; presented now: ${presented.fingerprint}. If the server’s key was changed on purpose, clear the pin and test again.`,
          ar: `المثبّت: ${target.hostKey.fingerprint}؛ المقدَّم الآن: ${presented.fingerprint}. إن كان مفتاح الخادم قد تغيّر عن قصد فامسح التثبيت واختبر مجددًا.`,
        });
      }
      throw signal.aborted ? new ConnectionFailure('timeout') : sftpFailureOf(error);
    }
    const sftp = await Promise.race([
      new Promise<SFTPWrapper>((resolve, reject) => client.sftp((error, wrapper) => (error ? reject(error) : resolve(wrapper)))),
      lost,
    ]).catch((error: unknown) => {
      client.end();
      throw sftpFailureOf(error);
    });
    sftp.on('error', ignore);
    // SFTP is requests and their answers: with Nagle's algorithm each small request waits for the
    // server's delayed acknowledgement (a 14 MB export took 18 s instead of 1.3 s).
    client.setNoDelay(true);
    const location = tracedCalls(new SftpLocation(sftp, config.basePath, lost, () => client.end()), 'sftp', {
      'server.address': config.host,
    });
    return { location, hostKey: presented! };
  }
}

/** The files of one folder on an SFTP server, over one session. */
class SftpLocation implements FileLocation {
  private closed = false;

  constructor(
    private readonly sftp: SFTPWrapper,
    private readonly basePath: string,
    private readonly lost: Promise<never>,
    private readonly end: () => void,
  ) {
    lost.catch(() => (this.closed = true));
  }

  async list(): Promise<RemoteFile[]> {
    const entries = await this.call<ssh2.FileEntryWithStats[]>((done) => this.sftp.readdir(this.basePath, done));
    return entries
      .filter((entry) => entry.attrs.isFile())
      .map((entry) => ({ name: entry.filename, bytes: entry.attrs.size, modifiedAt: new Date(entry.attrs.mtime * 1000) }));
  }

  async read(name: string): Promise<Readable> {
    await this.call((done) => this.sftp.stat(this.path(name), done));
    // A reader that stops early (a header is read) leaves reads in flight, which fail when the session
    // closes; they must not surface as an error nobody listens to.
    return this.sftp.createReadStream(this.path(name)).on('error', ignore);
  }

  /**
   * Written beside its name (a hidden `.partial` file of the same folder) and renamed into place once
   * whole, replacing what was there: a reader never takes a half-written file, and a write that fails
   * leaves nothing under the name (its partial file is deleted, unless the connection went with it).
   */
  async write(name: string, content: Readable): Promise<void> {
    const partial = this.path(`.${name}.${randomBytes(4).toString('hex')}.partial`);
    try {
      await Promise.race([pipeline(content, this.sftp.createWriteStream(partial)), this.lost]);
      await this.call((done) => this.replace(partial, this.path(name), done));
    } catch (error) {
      if (!this.closed) await this.call((done) => this.sftp.unlink(partial, done)).catch(() => undefined);
      throw this.failure(error);
    }
  }

  async remove(name: string): Promise<void> {
    await this.call((done) => this.sftp.unlink(this.path(name), done));
  }

  async close(): Promise<void> {
    this.end();
  }

  private path(name: string): string {
    return posix.join(this.basePath, name);
  }

  /**
   * Renames `from` over `to`. SFTP's own rename (version 3) refuses an existing target, so OpenSSH's
   * posix-rename extension, which replaces it at once, is used where the server offers it; elsewhere the
   * old file is deleted first. ssh2 throws at once for an extension the server did not announce.
   */
  private replace(from: string, to: string, done: (error: Error | null | undefined) => void): void {
    try {
      this.sftp.ext_openssh_rename(from, to, done);
    } catch {
      this.sftp.unlink(to, () => this.sftp.rename(from, to, done));
    }
  }

  private call<T>(operation: (done: (error: Error | null | undefined, value?: T) => void) => void): Promise<T> {
    return Promise.race([
      new Promise<T>((resolve, reject) => operation((error, value) => (error ? reject(this.failure(error)) : resolve(value as T)))),
      this.lost,
    ]);
  }

  private failure(error: unknown): ConnectionFailure {
    if (error instanceof ConnectionFailure) return error;
    if (this.closed) return new ConnectionFailure('connection_lost');
    return sftpFailureOf(error);
  }
}

function ignore(): void {}

function sftpFailureOf(error: unknown): ConnectionFailure {
  if (error instanceof ConnectionFailure) return error;
  const { level, code } = error as { level?: string; code?: unknown };
  if (level === 'client-authentication') return new ConnectionFailure('auth_failed');
  if (level === 'client-timeout') return new ConnectionFailure('timeout');
  if (code === SFTP_NO_SUCH_FILE) return new ConnectionFailure('not_found');
  if (code === SFTP_PERMISSION_DENIED) return new ConnectionFailure('permission_denied');
  if (code === SFTP_FAILURE) return new ConnectionFailure('server_refused');
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code))
    return new ConnectionFailure(code === 'ETIMEDOUT' ? 'timeout' : 'host_unreachable');
  return new ConnectionFailure('connection_lost');
}
