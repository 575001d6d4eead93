/**
 * The dashboard's calls to the service's /admin API: a client typed by the service's OpenAPI document
 * (`api-schema.d.ts`, written by `npm run generate:api-types`), with cookie transport: the access and refresh
 * tokens are HttpOnly cookies the page never sees. Every call but GET and HEAD echoes the readable
 * `adm_csrf` cookie in `X-CSRF-Token` (double submit). A 401 is answered by one refresh
 * (`POST /admin/auth/refresh`, the `adm_refresh` cookie) and one retry; if that fails the session is over.
 */
import createClient, { type MethodResponse } from 'openapi-fetch';
import type { paths } from './api-schema.js';
import type { Schema } from './types.js';

type ProblemDocument = Schema<'ProblemDocument'>;
/**
 * A refusal's problem document, with the details some refusals add (`rowLimit`, `dimension`…); the page's own
 * `network_error` and `unexpected` stand for answers that are none.
 */
export type Problem = Omit<ProblemDocument, 'code'> & {
  code: ProblemDocument['code'] | 'network_error' | 'unexpected';
  [detail: string]: unknown;
};

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message_en);
  }
}

const NETWORK = { status: 0, code: 'network_error', message_en: '', message_ar: '' } as Problem;

let refreshing: Promise<boolean> | null = null;
let onSessionEnded: () => void = () => undefined;

/** Called when a refresh fails: the page goes back to the sign-in form. */
export function whenSessionEnds(callback: () => void): void {
  onSessionEnded = callback;
}

function csrfToken(): string | undefined {
  const found = document.cookie.split('; ').find((part) => part.startsWith('adm_csrf='));
  return found ? decodeURIComponent(found.slice('adm_csrf='.length)) : undefined;
}

/**
 * A request as `fetch` is given it here: its body read whole (JSON as text, a file as its bytes) rather than
 * as a stream, so that it can be sent again after a refresh.
 */
async function sendable(request: Request): Promise<RequestInit & { url: string }> {
  const body =
    request.body === null
      ? undefined
      : /json/.test(request.headers.get('Content-Type') ?? '')
        ? await request.text()
        : await request.blob();
  return { url: request.url, method: request.method, headers: request.headers, body, credentials: 'same-origin' };
}

/** Sends a request with the session's CSRF token (read at each send: a refresh renews it). */
async function send({ url, ...init }: RequestInit & { url: string }): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.method !== 'GET' && init.method !== 'HEAD') {
    const csrf = csrfToken();
    if (csrf) headers.set('X-CSRF-Token', csrf);
  }
  try {
    return await fetch(url, { ...init, headers });
  } catch {
    throw new ApiError(NETWORK);
  }
}

function problemOf(body: unknown, status: number): Problem {
  return body && typeof body === 'object' && typeof (body as Problem).code === 'string'
    ? { ...(body as Problem), status }
    : { ...NETWORK, status, code: 'unexpected' };
}

/**
 * Whether the session's readable cookie is set. It lives exactly as long as the access cookie (a staff
 * sign-in's 15 minutes, or a support session), so without it there is no access token to present.
 */
export const hasAccessCookie = (): boolean => csrfToken() !== undefined;

/** One refresh at a time, whatever the number of calls that found their token expired. */
export function refresh(): Promise<boolean> {
  refreshing ??= send({
    url: '/admin/auth/refresh',
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: '{}',
    credentials: 'same-origin',
  })
    // Its body (no tokens: they are cookies) is read to the end all the same, so that the request ends with it.
    .then((response) => response.arrayBuffer().then(() => response.ok))
    .catch(() => false)
    .finally(() => setTimeout(() => (refreshing = null), 0));
  return refreshing;
}

/** The client's transport: a 401 for an expired (or dropped) access cookie is worth one refresh and one retry. */
async function sendWithSession(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname;
  const init = await sendable(request);
  const response = await send(init);
  if (response.status !== 401 || path.startsWith('/admin/auth/sign-in') || path.startsWith('/admin/auth/refresh')) return response;
  const problem = problemOf(
    await response
      .clone()
      .json()
      .catch(() => null),
    401,
  );
  // An expired access cookie is dropped by the browser, so `unauthenticated` is worth one refresh too.
  if (problem.code !== 'token_expired' && problem.code !== 'unauthenticated') return response;
  const retried = (await refresh()) ? await send(init) : response;
  if (retried.status === 401) {
    onSessionEnded();
    throw new ApiError(problemOf(await retried.json().catch(() => null), 401));
  }
  return retried;
}

export const client = createClient<paths>({ fetch: sendWithSession, headers: { Accept: 'application/json' }, credentials: 'same-origin' });

/** The data of a call, or the problem it answered thrown as an ApiError. */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(problemOf(error, response.status));
  return data as T;
}

type Gettable = keyof { [P in keyof paths as paths[P] extends { get: object } ? P : never]: true };
type GetParams<P extends Gettable> = paths[P] extends { get: { parameters: infer Params } } ? Params : never;
/** What a GET of `P` answers. */
type Answer<P extends Gettable> = MethodResponse<typeof client, 'get', P>;

/** GETs `path` with its path and query parameters: its answer, or its problem thrown. */
export function get<P extends Gettable>(path: P, params?: GetParams<P>): Promise<Answer<P>> {
  const request = client.GET as (path: string, init: object) => Promise<{ data?: Answer<P>; error?: unknown; response: Response }>;
  return answer(request(path, { params }));
}

/** A built-in report asked with the page's query (`filter[]`, range, sort, page): each report is a path of its own, all of one shape. */
export function getReport(name: string, query: URLSearchParams): Promise<Schema<'ReportResponseDoc'>> {
  const path = `/admin/insights/reports/${name}` as '/admin/insights/reports/overview';
  return answer(client.GET(path, { params: { query: {} }, querySerializer: () => query.toString() }));
}

/** The file name a `Content-Disposition` header gives: its UTF-8 `filename*` (RFC 6266), else its plain `filename`. */
export function fileNameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1];
  if (encoded) {
    try {
      return decodeURIComponent(encoded.trim());
    } catch {
      // A malformed name: the plain one below.
    }
  }
  return /filename="([^"]*)"/i.exec(disposition)?.[1] ?? undefined;
}

/**
 * Saves a file the API answers (a call made with `parseAs: 'blob'`): fetched through the client, so with
 * the session (refreshed if need be) and the headers the call sets (the member's language), not through a
 * link, which would carry the browser's language. Answers the name the file was saved under; a refusal is
 * thrown as an ApiError, as `answer` does.
 */
export async function saveFile(
  call: Promise<{ data?: unknown; error?: unknown; response: Response }>,
  fallbackName: string,
): Promise<string> {
  const blob = await answer<Blob>(call as Promise<{ data?: Blob; error?: unknown; response: Response }>);
  const name = fileNameOf((await call).response.headers.get('Content-Disposition')) ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked once the browser has taken the file.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}
