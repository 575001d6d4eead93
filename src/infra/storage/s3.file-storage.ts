import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, paginateListObjectsV2, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable, Transform, pipeline } from 'node:stream';
import { checkedKey, checkedPrefix, isFileKey, sortedByKey, type FileStorage, type ListedFile, type StoredFile } from './file-storage.js';
import type { S3Location } from './file-storage-url.js';

export interface S3FileStorageOptions {
  client: S3Client;
  bucket: string;
  /** Where in the bucket the keys live: `''` or ending in `/`. */
  prefix?: string;
  /** Objects per ListObjectsV2 page (S3 answers at most 1000). */
  pageSize?: number;
}

/**
 * Files as objects of an S3 bucket (AWS or S3-compatible), so that several instances share them. A
 * write is a multipart upload of 5 MB parts (a few in flight, so memory stays bounded whatever the
 * size), and an object appears only once its upload completes: readers never see half a file, and a
 * write that fails aborts its upload and leaves nothing.
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly pageSize: number;

  constructor(options: S3FileStorageOptions) {
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = checkedPrefix(options.prefix ?? '');
    this.pageSize = options.pageSize ?? 1000;
  }

  /** The storage FILE_STORAGE_URL names; credentials from the AWS SDK's default chain unless `config` gives them. */
  static at(location: S3Location, config: S3ClientConfig = {}): S3FileStorage {
    const client = new S3Client({
      region: location.region,
      endpoint: location.endpoint,
      forcePathStyle: location.forcePathStyle,
      ...(location.endpoint ? COMPATIBLE_CHECKSUMS : {}),
      ...config,
    });
    return new S3FileStorage({ client, bucket: location.bucket, prefix: location.prefix });
  }

  async write(key: string, content: Readable): Promise<StoredFile> {
    const objectKey = this.objectKey(key);
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    // An error of `content` destroys `counter` with it, which fails the upload that reads `counter`.
    pipeline(content, counter, () => undefined);
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: objectKey, Body: counter } });
    try {
      await upload.done();
    } catch (error) {
      counter.destroy();
      throw error;
    }
    return { key, bytes };
  }

  async open(key: string): Promise<{ bytes: number; content: Readable } | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      if (!(object.Body instanceof Readable)) throw new Error(`S3 answered ${key} with a body that is not a Node.js stream`);
      return { bytes: object.ContentLength ?? 0, content: object.Body };
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async list(prefix: string): Promise<ListedFile[]> {
    const files: ListedFile[] = [];
    const pages = paginateListObjectsV2(
      { client: this.client, pageSize: this.pageSize },
      { Bucket: this.bucket, Prefix: this.prefix + checkedPrefix(prefix) },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        const key = object.Key!.slice(this.prefix.length);
        // Objects put there by other means (a console's `folder/` markers) are no files of this storage.
        if (!isFileKey(key)) continue;
        files.push({ key, bytes: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) });
      }
    }
    return sortedByKey(files);
  }

  private objectKey(key: string): string {
    return this.prefix + checkedKey(key);
  }
}

/**
 * Checksums only where S3 requires them, for servers other than AWS: the SDK's default since 3.729
 * (a CRC32 on every upload) is refused by several S3-compatible ones (aws/aws-sdk-js-v3#6810).
 */
export const COMPATIBLE_CHECKSUMS = { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const;
