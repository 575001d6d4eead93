import { STATUS_CODES } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'vitest';
import { ERRORS, type ErrorCode } from '../../src/common/errors/error-catalogue.js';
import type { ResponseLike } from './responses.js';

export const ARABIC = /[\u0600-\u06FF]/;

/** Text that must never reach a client: stack frames, SQL, driver and framework internals. */
const LEAKS = [
  /\bat \S+ \(/, // stack frame
  /node_modules/,
  /\.(ts|js):\d+/,
  /\bselect\b.*\bfrom\b/i,
  /\binsert into\b/i,
  /\bsyntax error\b/i,
  /\bduplicate key\b/i,
  /\bpg_|postgres/i,
  /FST_ERR/,
  /"stack"/,
];

/**
 * The contract's problem document (section 2): RFC 9457 content type, every member present, the
 * bilingual message, the request id matching the header, nothing internal.
 */
export function expectProblem(response: ResponseLike, status: number, code: ErrorCode | Lowercase<ErrorCode>): Record<string, any> {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const body = JSON.parse(response.body) as Record<string, any>;
  // Under /admin shared codes are written lower_snake (NOT_FOUND → not_found).
  const declared = (code in ERRORS ? code : code.toUpperCase()) as ErrorCode;
  expect(body).toMatchObject({
    type: 'about:blank',
    title: status === ERRORS[declared].status ? ERRORS[declared].title : STATUS_CODES[status],
    status,
    code,
  });
  expect(typeof body.message_en).toBe('string');
  expect(body.message_en.length).toBeGreaterThan(0);
  expect(typeof body.message_ar).toBe('string');
  expect(body.message_ar).toMatch(ARABIC);
  const requestId = response.headers['x-request-id'];
  expect(typeof requestId).toBe('string');
  expect((requestId as string).length).toBeGreaterThan(0);
  expect(body.requestId).toBe(requestId);
  for (const leak of LEAKS) expect(response.body).not.toMatch(leak);
  if (body.errors !== undefined) {
    expect(Array.isArray(body.errors)).toBe(true);
    for (const error of body.errors) {
      expect(Object.keys(error).sort()).toEqual(['code', 'field', 'message_ar', 'message_en']);
      expect(error.message_ar).toMatch(ARABIC);
    }
  }
  return body;
}

export function fields(body: Record<string, any>): string[] {
  return (body.errors ?? []).map((error: { field: string }) => error.field);
}

/**
 * Sends bytes as they are on a new connection to a listening app (`inject` skips Node's HTTP parser)
 * and reads the answer until the server closes the connection: send `Connection: close` when the
 * request itself is well formed. The connection is not half-closed: Node aborts a request whose
 * client has ended its side.
 */
export function sendRaw(base: string, request: string | Buffer): Promise<ResponseLike> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headEnd = raw.indexOf('\r\n\r\n');
      if (headEnd < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(raw)}`));
      const [statusLine, ...headerLines] = raw.slice(0, headEnd).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ statusCode: Number(statusLine.split(' ')[1]), headers, body: raw.slice(headEnd + 4) });
    });
    socket.write(request);
  });
}
