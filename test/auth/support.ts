import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect, vi } from 'vitest';
import { expectProblem } from '../support/problem.js';

export function decodeJwt(token: string): { header: Record<string, any>; payload: Record<string, any>; signature: string } {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
    signature,
  };
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns true or `timeoutMs` passes; answers how long it took, or null on timeout. */
export async function within(timeoutMs: number, probe: () => Promise<boolean>, everyMs = 20): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= timeoutMs) {
    if (await probe()) return Date.now() - started;
    await sleep(everyMs);
  }
  return null;
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
export const REFRESH_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;

/**
 * Resolves once `feed` has delivered `payload` on `channel` to its subscribers. Listeners run in
 * subscription order, so by then every service that subscribed at start-up has handled it.
 */
export function notified(
  feed: { subscribe(channel: string, listener: (payload: string) => void): void },
  channel: string,
  payload: string,
  timeoutMs = 2000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => !done && reject(new Error(`no ${channel} notification ${payload} within ${timeoutMs} ms`)), timeoutMs);
    feed.subscribe(channel, (received) => {
      if (done || received !== payload) return;
      done = true;
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Rate-limit windows are aligned to the clock minute. Tests freeze Date (only Date) at chosen seconds
 * of a minute well ahead of real time, so window boundaries are exact and never crossed by accident.
 */
export const MINUTE = 60_000;
const clockBase = (Math.floor(Date.now() / MINUTE) + 10) * MINUTE;
export function clockAt(minute: number, second: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(clockBase + minute * MINUTE + second * 1000);
}

export function expectAllowed(response: LightMyRequestResponse, status: number, limit: number, remaining: number): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(response.headers['x-ratelimit-remaining']).toBe(String(remaining));
}

export function expectLimited(response: LightMyRequestResponse, retryAfter: number, limit?: number): void {
  const body = expectProblem(response, 429, 'RATE_LIMITED');
  expect(response.headers['retry-after']).toBe(String(retryAfter));
  expect(body.retryAfterSeconds).toBe(retryAfter);
  if (limit !== undefined) expect(body.limit).toBe(limit);
}
