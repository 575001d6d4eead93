import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startObjectStorage, type ObjectStoragePeer } from '../support/peers/object-storage.js';
import { isRunning } from '../support/peers/processes.js';
import { fingerprintFromHex, startSshd, type SshdPeer } from '../support/peers/sshd.js';

interface Session {
  client: Client;
  sftp: SFTPWrapper;
  /** The host key fingerprint the server presented, in OpenSSH's `SHA256:…` form. */
  fingerprint: string;
}

/** Logs in with `auth` and opens SFTP; rejects with the client's error when the server refuses. */
function sftpSession(sshd: SshdPeer, auth: Partial<ConnectConfig>): Promise<Session> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let fingerprint = '';
    client.on('error', reject);
    client.on('ready', () =>
      client.sftp((error, sftp) => {
        if (error) {
          client.end();
          reject(error);
        } else resolve({ client, sftp, fingerprint });
      }),
    );
    client.connect({
      host: sshd.host,
      port: sshd.port,
      username: sshd.username,
      readyTimeout: 10_000,
      hostHash: 'sha256',
      hostVerifier: (hex: string) => {
        fingerprint = fingerprintFromHex(hex);
        return true;
      },
      ...auth,
    });
  });
}

function putFile(sftp: SFTPWrapper, path: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => sftp.writeFile(path, text, (error) => (error ? reject(error) : resolve())));
}

function readDir(sftp: SFTPWrapper, path: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    sftp.readdir(path, (error, list) => (error ? reject(error) : resolve(list.map((entry) => entry.filename).sort()))),
  );
}

function realPath(sftp: SFTPWrapper, path: string): Promise<string> {
  return new Promise((resolve, reject) => sftp.realpath(path, (error, absolute) => (error ? reject(error) : resolve(absolute))));
}

describe('sshd test peer', () => {
  let sshd: SshdPeer;
  beforeAll(async () => {
    sshd = await startSshd();
  });
  afterAll(() => sshd?.stop());

  it('logs in with the password into the user’s directory, where the user may write', async () => {
    const session = await sftpSession(sshd, { password: sshd.password });
    try {
      expect(await realPath(session.sftp, '.')).toBe(sshd.root);
      await putFile(session.sftp, 'hello.txt', 'hi');
      expect(await readDir(session.sftp, '.')).toEqual(['hello.txt']);
      expect(session.fingerprint).toBe(await sshd.hostKeyFingerprint());
    } finally {
      session.client.end();
    }
  });

  it('logs in with the authorized key and with the encrypted one and its passphrase', async () => {
    for (const auth of [{ privateKey: sshd.privateKey }, { privateKey: sshd.encryptedPrivateKey, passphrase: sshd.passphrase }]) {
      const session = await sftpSession(sshd, auth);
      session.client.end();
    }
  });

  it('refuses a wrong password and an unrelated key', async () => {
    await expect(sftpSession(sshd, { password: 'wrong' })).rejects.toThrow(/authentication methods failed/);
    await expect(sftpSession(sshd, { privateKey: sshd.wrongPrivateKey })).rejects.toThrow(/authentication methods failed/);
  });

  it('presents a new host key after regenerateHostKey', async () => {
    const before = await sshd.hostKeyFingerprint();
    expect(before).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    await sshd.regenerateHostKey();
    const after = await sshd.hostKeyFingerprint();
    expect(after).not.toBe(before);
    const session = await sftpSession(sshd, { password: sshd.password });
    session.client.end();
    expect(session.fingerprint).toBe(after);
  });

  it('kill drops open sessions; stop leaves no process and is idempotent', async () => {
    const peer = await startSshd();
    const session = await sftpSession(peer, { password: peer.password });
    const closed = new Promise<void>((resolve) => session.client.on('close', () => resolve()));
    peer.kill();
    await closed;
    await peer.stop();
    await peer.stop();
    expect(isRunning(peer.pid)).toBe(false);
    expect(() => process.kill(peer.pid, 0)).toThrow();
  });
});

describe('object storage test peer', () => {
  let storage: ObjectStoragePeer;
  let s3: S3Client;
  const client = (accessKeyId: string, secretAccessKey: string) =>
    new S3Client({
      endpoint: storage.endpoint,
      region: storage.region,
      forcePathStyle: true,
      credentials: { accessKeyId, secretAccessKey },
    });
  beforeAll(async () => {
    storage = await startObjectStorage();
    s3 = client(storage.accessKeyId, storage.secretAccessKey);
  });
  afterAll(async () => {
    s3?.destroy();
    await storage?.stop();
  });

  it('creates a bucket, puts, lists, gets and deletes objects', async () => {
    await storage.createBucket('peer-bucket');
    await s3.send(new PutObjectCommand({ Bucket: 'peer-bucket', Key: 'a/b.txt', Body: 'hello' }));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'peer-bucket' }));
    expect(listed.Contents?.map((object) => [object.Key, object.Size])).toEqual([['a/b.txt', 5]]);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'peer-bucket', Key: 'a/b.txt' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    await s3.send(new DeleteObjectCommand({ Bucket: 'peer-bucket', Key: 'a/b.txt' }));
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'peer-bucket' }))).KeyCount).toBe(0);
  });

  it('answers NoSuchBucket, SignatureDoesNotMatch and AccessDenied as S3 does', async () => {
    await expect(s3.send(new GetObjectCommand({ Bucket: 'no-such-bucket', Key: 'x' }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
      $metadata: { httpStatusCode: 404 },
    });
    const forger = client(storage.accessKeyId, 'not-the-secret');
    await expect(forger.send(new ListObjectsV2Command({ Bucket: 'peer-bucket' }))).rejects.toMatchObject({
      name: 'SignatureDoesNotMatch',
      $metadata: { httpStatusCode: 403 },
    });
    const other = client(storage.otherAccessKeyId, storage.otherSecretAccessKey);
    await expect(other.send(new ListObjectsV2Command({ Bucket: 'peer-bucket' }))).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(other.send(new PutObjectCommand({ Bucket: 'peer-bucket', Key: 'x', Body: 'x' }))).rejects.toMatchObject({
      name: 'AccessDenied',
    });
    forger.destroy();
    other.destroy();
  });

  it('stop leaves no process and is idempotent', async () => {
    const peer = await startObjectStorage();
    await peer.createBucket('short-lived');
    await peer.stop();
    await peer.stop();
    expect(peer.pids).toHaveLength(4);
    for (const pid of peer.pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
