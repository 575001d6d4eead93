import { isFileKey } from './file-storage.js';

/** An S3 bucket (AWS or S3-compatible) and the prefix inside it under which the service keeps its files. */
export interface S3Location {
  bucket: string;
  /** `''` or ending in `/`. */
  prefix: string;
  /** Unset: the AWS SDK's own (AWS_REGION, the profile). */
  region?: string;
  /** An S3-compatible server's address; unset: AWS. */
  endpoint?: string;
  forcePathStyle: boolean;
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;
const OPTIONS = ['region', 'endpoint', 'forcePathStyle'];

/**
 * FILE_STORAGE_URL read: `s3://bucket/optional/prefix?region=…&endpoint=http://…&forcePathStyle=true`.
 * Credentials never come from the URL but from the AWS SDK's default chain (AWS_ACCESS_KEY_ID…).
 */
export function parseFileStorageUrl(value: string): { location: S3Location } | { error: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: 'must be a URL: s3://bucket/optional/prefix?region=…' };
  }
  if (url.protocol !== 's3:') return { error: 'must be an s3:// URL (unset: files on the local disk under DATA_DIR/files)' };
  if (url.username || url.password) return { error: 'must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY' };
  if (url.port || url.hash) return { error: 'must be s3://bucket/optional/prefix?options, without a port or #fragment' };
  if (!BUCKET.test(url.hostname)) return { error: 'must name a bucket: 3 to 63 lowercase letters, digits, dots and hyphens' };
  const prefix = rawPath(value).replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !isFileKey(prefix)) return { error: 'must have a prefix of letters, digits and . _ - / only' };
  const unknown = [...url.searchParams.keys()].filter((name) => !OPTIONS.includes(name));
  if (unknown.length > 0) return { error: `has unknown options ${unknown.join(', ')} (known: ${OPTIONS.join(', ')})` };
  const region = url.searchParams.get('region') ?? undefined;
  if (region !== undefined && !REGION.test(region)) return { error: 'must have a region such as eu-central-1' };
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !isHttpUrl(endpoint)) return { error: 'must have an endpoint that is an http:// or https:// URL' };
  const forcePathStyle = url.searchParams.get('forcePathStyle') ?? 'false';
  if (forcePathStyle !== 'true' && forcePathStyle !== 'false') return { error: 'must have forcePathStyle true or false' };
  return {
    location: {
      bucket: url.hostname,
      prefix: prefix === '' ? '' : `${prefix}/`,
      region,
      endpoint,
      forcePathStyle: forcePathStyle === 'true',
    },
  };
}

/** The URL's path as written: `URL` would resolve `a/../b` to `b`, hiding a prefix no key could have. */
function rawPath(value: string): string {
  const afterScheme = value.slice(value.indexOf('//') + 2).split(/[?#]/)[0];
  const slash = afterScheme.indexOf('/');
  if (slash < 0) return '';
  try {
    return decodeURIComponent(afterScheme.slice(slash));
  } catch {
    return '%'; // malformed escapes: refused like any other odd character
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
  } catch {
    return false;
  }
}
