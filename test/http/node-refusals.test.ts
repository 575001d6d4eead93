import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/common/errors/error-catalogue.js';
import { UUID } from '../support/formats.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem, sendRaw } from '../support/problem.js';
import type { ResponseLike } from '../support/responses.js';

/** A request target of each API: the refusal's code is in its dialect. */
const TARGETS = [
  { api: 'dashboard', path: '/admin/data-hub/mappings', code: (code: ErrorCode) => code.toLowerCase() as Lowercase<ErrorCode> },
  { api: 'storefront', path: '/v1/auth/anonymous', code: (code: ErrorCode) => code },
];

/** An HTTP answer read off a socket: status line, headers, then the body (bytes after the head). */
function parseAnswer(raw: string): ResponseLike {
  const headEnd = raw.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = raw.slice(0, headEnd).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body: raw.slice(headEnd + 4) };
}

/** Sends `parts` on one connection, `pause` ms apart, and reads until the server closes it: its answers, in order. */
function sendInParts(base: string, parts: string[], pause = 150): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    void (async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0) await sleep(pause);
        if (!socket.destroyed) socket.write(part);
      }
    })();
  });
}

/** The refusal written on the socket: the problem document in the target's dialect, the connection closed. */
function expectRefusal(response: ResponseLike, status: number, code: string) {
  const body = expectProblem(response, status, code as ErrorCode);
  expect(body.requestId).toMatch(UUID);
  expect(response.headers.connection).toBe('close');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them are answered in the dialect of their
 * target, lower_snake under /admin (issue 24, item 5), with what Node tells of the target: the request
 * line among the bytes it was parsing, else the request in flight on the connection.
 */
describe('requests refused by the HTTP parser answer in their target’s dialect', () => {
  const t = useTestApp();
  const timed = useTestApp();
  let base: string;
  let timedBase: string;

  beforeAll(async () => {
    base = await t.listen();
    // Node checks its timeouts every 30 s by default: here every 50 ms, and a request has 600 ms to arrive.
    const server = timed.app.getHttpServer();
    Object.assign(server, { connectionsCheckingInterval: 50, headersTimeout: 400, requestTimeout: 600 });
    timedBase = await timed.listen();
  });

  for (const { api, path, code } of TARGETS) {
    describe(`on the ${api} API (${path})`, () => {
      it('answers bad framing with 400 malformed_request, whether the fault is in the head, the address or the body', async () => {
        const heads = [
          `POST ${path} HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n`,
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
          `POST ${path} HTTP/9.9\r\nHost: x\r\n\r\n`,
          Buffer.from(`GET ${path}?q=خلاط HTTP/1.1\r\nHost: x\r\n\r\n`, 'utf8'),
        ];
        for (const head of heads) expectRefusal(await sendRaw(base, head), 400, code('MALFORMED_REQUEST'));
        // The head is read and the request dispatched; a malformed chunk of its body comes later, alone.
        const chunked = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
        expectRefusal(parseAnswer(await sendInParts(base, [chunked, 'zz\r\n'])), 400, code('MALFORMED_REQUEST'));
      });

      it('answers a head over 16 KiB with 431 request_header_too_large', async () => {
        const request = `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`;
        expectRefusal(await sendRaw(base, request), 431, code('REQUEST_HEADER_TOO_LARGE'));
      });

      it('answers the refused request of a connection in its own dialect, after an answered one of the other API', async () => {
        const other = path.startsWith('/admin/') ? '/health/live' : '/admin/auth/me';
        const answers = await sendInParts(base, [`GET ${other} HTTP/1.1\r\nHost: x\r\n\r\nGET ${path} HTTP/1.1\r\nBad Header\r\n\r\n`]);
        // The refusal closes the connection, maybe before the first request is answered: it is the last answer.
        const refusal = answers.slice(Math.max(...[...answers.matchAll(/HTTP\/1\.1 \d{3} /g)].map((answer) => answer.index)));
        expectRefusal(parseAnswer(refusal), 400, code('MALFORMED_REQUEST'));
      });

      it('answers a body that does not arrive in time with 408 request_timeout', async () => {
        const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{"a"`;
        expectRefusal(await sendRaw(timedBase, head), 408, code('REQUEST_TIMEOUT'));
      });
    });
  }

  it('answers a head that does not arrive in time with 408 REQUEST_TIMEOUT: Node tells nothing of its target', async () => {
    // Node raises the timeout of an unfinished head with its code alone, not the bytes it holds.
    for (const { path } of TARGETS) {
      expectRefusal(await sendRaw(timedBase, `GET ${path} HTTP/1.1\r\nHost: x\r\n`), 408, 'REQUEST_TIMEOUT');
    }
  });
});

/** Refusals Fastify makes before a route's handler runs follow the path's dialect too, and say what they are. */
describe('framework refusals under /admin', () => {
  const t = useTestApp({ BODY_LIMIT_BYTES: '2048' });

  it('answers 415, 413, an undecodable address, 405 and 404 in lower_snake codes, with nosniff', async () => {
    const answers: [Promise<ResponseLike>, number, string][] = [
      [
        t.app.inject({ method: 'POST', url: '/admin/data-hub/mappings', headers: { 'content-type': 'text/plain' }, payload: 'x' }),
        415,
        'unsupported_media_type',
      ],
      [
        t.app.inject({
          method: 'POST',
          url: '/admin/data-hub/mappings',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ name: 'x'.repeat(4_000) }),
        }),
        413,
        'payload_too_large',
      ],
      [t.app.inject({ method: 'GET', url: '/admin/data-hub/mappings/%E0%A4%A' }), 400, 'validation_failed'],
      [t.app.inject({ method: 'DELETE', url: '/admin/auth/sign-in' }), 405, 'method_not_allowed'],
      [t.app.inject({ method: 'GET', url: '/admin/no-such-thing' }), 404, 'not_found'],
    ];
    for (const [answer, status, code] of answers) {
      const response = await answer;
      expectProblem(response, status, code as Lowercase<ErrorCode>);
      expect(response.headers['x-content-type-options'], code).toBe('nosniff');
    }
  });
});
