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

/**
 * The dashboard's cookies (contract section 7): all SameSite=Strict and Secure; the access token
 * reaches only /admin, the refresh token only /admin/auth, and the CSRF token is readable by the
 * dashboard page for the double submit.
 */
export const ADMIN_ACCESS_COOKIE = 'adm_access';
export const ADMIN_REFRESH_COOKIE = 'adm_refresh';
export const ADMIN_CSRF_COOKIE = 'adm_csrf';

const ADMIN_ACCESS: CookieSerializeOptions = {
  path: '/admin',
  maxAge: ACCESS_TOKEN_TTL_SECONDS,
  sameSite: 'strict',
  httpOnly: true,
  secure: true,
};
const ADMIN_REFRESH: CookieSerializeOptions = { ...ADMIN_ACCESS, path: '/admin/auth', maxAge: REFRESH_TOKEN_TTL_SECONDS };
const ADMIN_CSRF: CookieSerializeOptions = { ...ADMIN_ACCESS, httpOnly: false };

export function setAdminCookies(reply: FastifyReply, tokens: { accessToken: string; refreshToken: string; csrfToken: string }): void {
  reply
    .setCookie(ADMIN_ACCESS_COOKIE, tokens.accessToken, ADMIN_ACCESS)
    .setCookie(ADMIN_REFRESH_COOKIE, tokens.refreshToken, ADMIN_REFRESH)
    .setCookie(ADMIN_CSRF_COOKIE, tokens.csrfToken, ADMIN_CSRF);
}

/**
 * A support session in a browser: its access token and CSRF token live as long as the session, and there is
 * no refresh cookie (a support session is not refreshed); one left by a staff sign-in is dropped, so that the
 * tab cannot turn back into that staff session on its own.
 */
export function setSupportCookies(reply: FastifyReply, tokens: { accessToken: string; csrfToken: string; expiresAt: Date }): void {
  const maxAge = Math.max(1, Math.floor((tokens.expiresAt.getTime() - Date.now()) / 1000));
  reply
    .setCookie(ADMIN_ACCESS_COOKIE, tokens.accessToken, { ...ADMIN_ACCESS, maxAge })
    .setCookie(ADMIN_CSRF_COOKIE, tokens.csrfToken, { ...ADMIN_CSRF, maxAge })
    .clearCookie(ADMIN_REFRESH_COOKIE, { ...ADMIN_REFRESH, maxAge: undefined });
}

/** After sign-out: the browser forgets all three (the session itself is already revoked). */
export function clearAdminCookies(reply: FastifyReply): void {
  reply
    .clearCookie(ADMIN_ACCESS_COOKIE, { ...ADMIN_ACCESS, maxAge: undefined })
    .clearCookie(ADMIN_REFRESH_COOKIE, { ...ADMIN_REFRESH, maxAge: undefined })
    .clearCookie(ADMIN_CSRF_COOKIE, { ...ADMIN_CSRF, maxAge: undefined });
}
