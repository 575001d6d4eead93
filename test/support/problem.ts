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
export function expectProblem(response: ResponseLike, status: number, code: ErrorCode): Record<string, any> {
  expect({ status: response.statusCode, body: response.body }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json(;|$)/);
  const body = JSON.parse(response.body) as Record<string, any>;
  expect(body).toMatchObject({
    type: 'about:blank',
    title: ERRORS[code].title,
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
