import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { encodeCursor } from '../../common/pagination/cursor.js';

const JSON_TYPE = 'application/json; charset=utf-8';
/** Below this, compression costs more than it saves. */
const GZIP_MIN_BYTES = 1024;

/** A response rendered once and served many times: UTF-8 bytes, their ETag and, on demand, their gzip. */
export class RenderedJson {
  readonly etag: string;
  private gzipped?: Buffer;

  constructor(readonly body: Buffer) {
    this.etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  }

  /** From JSON text as PostgreSQL built it: no parse and re-serialise on the way through. */
  static fromText(json: string): RenderedJson {
    return new RenderedJson(Buffer.from(json));
  }

  /** The gzip of the body, made the first time a client accepts it; undefined when not worth it. */
  gzip(): Buffer | undefined {
    if (this.body.length < GZIP_MIN_BYTES) return undefined;
    this.gzipped ??= gzipSync(this.body, { level: 6 });
    return this.gzipped;
  }
}

/**
 * Sends a pre-rendered JSON response: 304 when the client holds the same ETag, gzip when the client
 * accepts it (compressed once per rendering, not per request), the bytes as they are otherwise.
 */
export function sendRendered(request: FastifyRequest, reply: FastifyReply, page: RenderedJson): FastifyReply {
  reply.header('ETag', page.etag).header('Vary', 'Accept-Encoding').header('Cache-Control', 'private, no-cache');
  if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
  const gzipped = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '') ? page.gzip() : undefined;
  if (gzipped) return reply.header('Content-Encoding', 'gzip').type(JSON_TYPE).send(gzipped);
  return reply.type(JSON_TYPE).send(page.body);
}

/**
 * A list answer `{ items, nextCursor }` from rows that each hold one item as JSON text. Rows are
 * fetched with limit + 1: the extra row only says whether another page exists.
 */
export function renderPage<Row extends { doc: string }>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => (string | number)[],
): RenderedJson {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor = rows.length > limit && last ? encodeCursor(keyOf(last)) : null;
  return RenderedJson.fromText(`{"items":[${items.map((row) => row.doc).join(',')}],"nextCursor":${JSON.stringify(nextCursor)}}`);
}
