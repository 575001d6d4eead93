import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './token-lifetimes.js';

export const ACCESS_COOKIE = 'sf_access';
export const REFRESH_COOKIE = 'sf_refresh';
/** Readable by the page on purpose: it is echoed in the X-CSRF-Token header on unsafe requests. */
export const CSRF_COOKIE = 'sf_csrf';
export const CSRF_HEADER = 'x-csrf-token';

const ACCESS: CookieSerializeOptions = { path: '/', maxAge: ACCESS_TOKEN_TTL_SECONDS, sameSite: 'lax', httpOnly: true, secure: true };
const REFRESH: CookieSerializeOptions = {
  path: '/v1/auth',
  maxAge: REFRESH_TOKEN_TTL_SECONDS,
  sameSite: 'strict',
  httpOnly: true,
  secure: true,
};
const CSRF: CookieSerializeOptions = { path: '/', maxAge: ACCESS_TOKEN_TTL_SECONDS, sameSite: 'strict', httpOnly: false, secure: true };

export function setSessionCookies(reply: FastifyReply, tokens: { accessToken: string; refreshToken: string; csrfToken: string }): void {
  reply
    .setCookie(ACCESS_COOKIE, tokens.accessToken, ACCESS)
    .setCookie(REFRESH_COOKIE, tokens.refreshToken, REFRESH)
    .setCookie(CSRF_COOKIE, tokens.csrfToken, CSRF);
}
