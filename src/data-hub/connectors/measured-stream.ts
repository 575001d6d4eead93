import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * A pass-through that counts and hashes (SHA-256) the bytes of a file on its way, failing with
 * `overrun()` as soon as they pass `limit`.
 */
export function measuredStream(limit = Number.POSITIVE_INFINITY, overrun?: () => Error) {
  const hash = createHash('sha256');
  let bytes = 0;
  let digest: string | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      if (bytes > limit) return done(overrun!());
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, bytes: () => bytes, sha256: () => (digest ??= hash.digest('hex')) };
}
