import { DeleteObjectCommand, GetObjectCommand, paginateListObjectsV2, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Injectable } from '@nestjs/common';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { EgressPolicy } from '../../infra/egress/egress-policy.js';
import { COMPATIBLE_CHECKSUMS } from '../../infra/storage/s3.file-storage.js';
import { ObjectStorageConfigDto, ObjectStorageCredentialsDto } from './connector-config.dto.js';
import { ConnectionFailure, type ConnectionFailureCode } from './connection-failure.js';
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

export interface ObjectStorageConfig {
  endpoint?: string;
  region: string;
  bucket: string;
  prefix: string;
  forcePathStyle?: boolean;
}

export interface ObjectStorageCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** S3's error codes (its `Code`, the SDK's `name`) as the merchant's reasons. */
const S3_FAILURES: Record<string, ConnectionFailureCode> = {
  NoSuchKey: 'not_found',
  NotFound: 'not_found',
  AccessDenied: 'permission_denied',
  AllAccessDisabled: 'permission_denied',
  InvalidAccessKeyId: 'auth_failed',
  SignatureDoesNotMatch: 'auth_failed',
  InvalidToken: 'auth_failed',
  ExpiredToken: 'auth_failed',
  AuthorizationHeaderMalformed: 'auth_failed',
  RequestTimeout: 'timeout',
  TimeoutError: 'timeout',
};

/**
 * An S3 bucket, or any S3-compatible store (`endpoint`), through the AWS SDK. Its HTTP agents resolve
 * hosts through the egress policy, so every request goes to an address the policy checked. The prefix
 * is a folder: its files are the objects directly under it.
 */
@Injectable()
export class ObjectStorageConnector implements Connector {
  readonly kind = 'object_storage';
  readonly configType = ObjectStorageConfigDto;
  readonly credentialsType = ObjectStorageCredentialsDto;

  constructor(private readonly egress: EgressPolicy) {}

  async test(target: ConnectionTarget, signal: AbortSignal): Promise<TestResult> {
    await usingLocation(await this.location(target, signal), probeFileLocation);
    return {};
  }

  async fields(target: ConnectionTarget, request: Required<FieldsRequest>, signal: AbortSignal) {
    return usingLocation(await this.location(target, signal), (opened) => newestFileFields(opened, request.template, request.format));
  }

  async location(target: ConnectionTarget, signal: AbortSignal): Promise<FileLocation> {
    const config = target.config as ObjectStorageConfig;
    const credentials = target.credentials as ObjectStorageCredentials;
    // Sockets skip `lookup` for an address: an endpoint given as one is checked here, a name on every connection.
    if (config.endpoint) await checkedAddress(this.egress, new URL(config.endpoint).hostname);
    const lookup = this.egress.lookupFunction();
    const client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle ?? false,
      ...(config.endpoint ? COMPATIBLE_CHECKSUMS : {}),
      credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
      maxAttempts: 2,
      requestHandler: {
        httpAgent: new HttpAgent({ lookup, keepAlive: true }),
        httpsAgent: new HttpsAgent({ lookup, keepAlive: true }),
        connectionTimeout: 5_000,
        requestTimeout: 10_000,
      },
    });
    return new ObjectStorageLocation(client, config.bucket, folderOf(config.prefix), signal);
  }
}

function folderOf(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed ? `${trimmed}/` : '';
}

class ObjectStorageLocation implements FileLocation {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly folder: string,
    private readonly signal: AbortSignal,
  ) {}

  async list(): Promise<RemoteFile[]> {
    const files: RemoteFile[] = [];
    try {
      const pages = paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: this.folder, Delimiter: '/' });
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const name = object.Key!.slice(this.folder.length);
          if (name) files.push({ name, bytes: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) });
        }
        if (this.signal.aborted) throw new ConnectionFailure('timeout');
      }
    } catch (error) {
      throw this.failure(error);
    }
    return files;
  }

  async read(name: string): Promise<Readable> {
    const object = await this.client
      .send(new GetObjectCommand({ Bucket: this.bucket, Key: this.folder + name }), { abortSignal: this.signal })
      .catch((error: unknown) => {
        throw this.failure(error);
      });
    return object.Body as Readable;
  }

  /** A multipart upload: the object appears only when complete, and the stream is never held whole in memory. */
  async write(name: string, content: Readable): Promise<void> {
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: this.folder + name, Body: content } });
    const abort = () => void upload.abort().catch(() => undefined);
    this.signal.addEventListener('abort', abort, { once: true });
    try {
      await upload.done();
    } catch (error) {
      throw this.failure(error);
    } finally {
      this.signal.removeEventListener('abort', abort);
    }
  }

  async remove(name: string): Promise<void> {
    await this.client
      .send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.folder + name }), { abortSignal: this.signal })
      .catch((error: unknown) => {
        throw this.failure(error);
      });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private failure(error: unknown): ConnectionFailure {
    if (error instanceof ConnectionFailure) return error;
    if (this.signal.aborted) return new ConnectionFailure('timeout');
    const { name, code, $metadata } = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
    if (name === 'NoSuchBucket')
      return new ConnectionFailure('not_found', { en: `No bucket is named ${this.bucket}.`, ar: `لا توجد حاوية باسم ${this.bucket}.` });
    const known = S3_FAILURES[name ?? ''];
    if (known) return new ConnectionFailure(known);
    if (code === 'EGRESS_REFUSED') return new ConnectionFailure('host_not_allowed');
    if (code && NETWORK_ERROR_CODES.has(code)) return new ConnectionFailure(code === 'ETIMEDOUT' ? 'timeout' : 'host_unreachable');
    const status = $metadata?.httpStatusCode ?? (error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined);
    if (status === 403) return new ConnectionFailure('permission_denied');
    if (status === 404) return new ConnectionFailure('not_found');
    if (status === 401) return new ConnectionFailure('auth_failed');
    return new ConnectionFailure('host_unreachable');
  }
}
