import { GetObjectCommand, ListMultipartUploadsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/infra/config/app-config.js';
import { parseFileStorageUrl, type S3Location } from '../../src/infra/storage/file-storage-url.js';
import { LocalDiskFileStorage } from '../../src/infra/storage/local-disk.file-storage.js';
import { S3FileStorage } from '../../src/infra/storage/s3.file-storage.js';
import { fileStorageFor } from '../../src/infra/storage/storage.module.js';
import { startObjectStorage, type ObjectStoragePeer } from '../support/peers/object-storage.js';
import { failingAfter, fileStorageContract } from './file-storage.contract.js';

const BUCKET = 'storefront-files';

describe('S3FileStorage', () => {
  let peer: ObjectStoragePeer;
  let s3: S3Client;
  beforeAll(async () => {
    peer = await startObjectStorage();
    await peer.createBucket(BUCKET);
    s3 = new S3Client({
      endpoint: peer.endpoint,
      region: peer.region,
      forcePathStyle: true,
      credentials: { accessKeyId: peer.accessKeyId, secretAccessKey: peer.secretAccessKey },
    });
  });
  afterAll(async () => {
    s3?.destroy();
    await peer?.stop();
  });

  /** Where a test's files go: a prefix of its own in the one bucket. */
  const location = (prefix = `run-${randomBytes(4).toString('hex')}/`): S3Location => ({
    bucket: BUCKET,
    prefix,
    region: peer.region,
    endpoint: peer.endpoint,
    forcePathStyle: true,
  });
  const credentials = () => ({ accessKeyId: peer.accessKeyId, secretAccessKey: peer.secretAccessKey });

  describe('as FILE_STORAGE_URL configures it', () => {
    fileStorageContract(async () => S3FileStorage.at(location(), { credentials: credentials() }));
  });

  describe('at the bucket’s top, listing two objects a page', () => {
    fileStorageContract(async () => {
      // Each storage of this suite gets a bucket of its own, since it has no prefix to keep to.
      const bucket = `top-${randomBytes(4).toString('hex')}`;
      await peer.createBucket(bucket);
      return new S3FileStorage({ client: s3, bucket, pageSize: 2 });
    });
  });

  it('keeps its keys under its prefix in the bucket and lists only those', async () => {
    const storage = S3FileStorage.at(location('tenant/files/'), { credentials: credentials() });
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tenant/other.csv', Body: 'not ours' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'tenant/files/folder/', Body: '' }));
    await storage.write('a/b.csv', Readable.from(['ours']));
    expect((await storage.list('')).map((file) => file.key)).toEqual(['a/b.csv']);
    expect(await text((await storage.open('a/b.csv'))!.content)).toBe('ours');
  });

  it('aborts the multipart upload of a write that fails, leaving no parts behind', async () => {
    const storage = S3FileStorage.at(location(), { credentials: credentials() });
    await expect(storage.write('failed.bin', failingAfter(12 * 1024 * 1024))).rejects.toThrow('source failed');
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET }));
    expect((uploads.Uploads ?? []).filter((upload) => upload.Key?.endsWith('failed.bin'))).toEqual([]);
  });

  it('fails a write the server refuses (AccessDenied) and stops reading the stream', async () => {
    const storage = S3FileStorage.at(location(), {
      credentials: { accessKeyId: peer.otherAccessKeyId, secretAccessKey: peer.otherSecretAccessKey },
    });
    const content = Readable.from(['x']);
    await expect(storage.write('denied.csv', content)).rejects.toMatchObject({ name: 'AccessDenied' });
    expect(content.destroyed).toBe(true);
    await expect(storage.open('denied.csv')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('fails to open a file of a bucket that does not exist rather than calling it missing', async () => {
    const storage = S3FileStorage.at({ ...location(), bucket: 'no-such-bucket' }, { credentials: credentials() });
    await expect(storage.open('a.csv')).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });

  describe('chosen by FILE_STORAGE_URL', () => {
    it('is the local disk under DATA_DIR/files when unset', () => {
      expect(fileStorageFor(loadConfig({ DATA_DIR: '/tmp/x' }))).toBeInstanceOf(LocalDiskFileStorage);
    });

    it('is the bucket the URL names, with credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY', async () => {
      vi.stubEnv('AWS_ACCESS_KEY_ID', peer.accessKeyId);
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', peer.secretAccessKey);
      try {
        const url = `s3://${BUCKET}/configured/files?region=us-east-1&endpoint=${encodeURIComponent(peer.endpoint)}&forcePathStyle=true`;
        const storage = fileStorageFor(loadConfig({ FILE_STORAGE_URL: url }));
        expect(storage).toBeInstanceOf(S3FileStorage);
        await storage.write('hello.txt', Readable.from(['hello']));
        const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'configured/files/hello.txt' }));
        expect(await object.Body?.transformToString()).toBe('hello');
      } finally {
        vi.unstubAllEnvs();
      }
    });
  });
});

describe('FILE_STORAGE_URL', () => {
  it('reads the bucket, the prefix and the options', () => {
    expect(parseFileStorageUrl('s3://my-bucket')).toEqual({
      location: { bucket: 'my-bucket', prefix: '', region: undefined, endpoint: undefined, forcePathStyle: false },
    });
    expect(parseFileStorageUrl('s3://my.bucket/a/b/?region=eu-central-1&endpoint=http://127.0.0.1:9000&forcePathStyle=true')).toEqual({
      location: { bucket: 'my.bucket', prefix: 'a/b/', region: 'eu-central-1', endpoint: 'http://127.0.0.1:9000', forcePathStyle: true },
    });
  });

  it.each([
    ['not a url', /must be a URL/],
    ['https://bucket/prefix', /must be an s3:\/\/ URL/],
    ['s3://key:secret@bucket', /must not carry credentials/],
    ['s3://bucket:9000', /without a port/],
    ['s3://Bucket_Name', /must name a bucket/],
    ['s3://ab', /must name a bucket/],
    ['s3://bucket/a/../b', /prefix/],
    ['s3://bucket/a b', /prefix/],
    ['s3://bucket/a%2F..%2Fb', /prefix/],
    ['s3://bucket/%E0%A4%A', /prefix/],
    ['s3://bucket?regoin=x', /unknown options regoin/],
    ['s3://bucket?region=EU%20West', /region/],
    ['s3://bucket?endpoint=ftp://x', /endpoint/],
    ['s3://bucket?endpoint=127.0.0.1:9000', /endpoint/],
    ['s3://bucket?forcePathStyle=yes', /forcePathStyle/],
  ])('refuses %j', (value, message) => {
    const parsed = parseFileStorageUrl(value);
    expect(parsed).toHaveProperty('error');
    expect((parsed as { error: string }).error).toMatch(message);
  });
});
