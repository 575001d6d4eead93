/**
 * The dashboard's calls to the service's /admin API, with cookie transport: the access and refresh
 * tokens are HttpOnly cookies the page never sees. Every call but GET and HEAD echoes the readable
 * `adm_csrf` cookie in `X-CSRF-Token` (double submit). A 401 is answered by one refresh
 * (`POST /admin/auth/refresh`, the `adm_refresh` cookie) and one retry; if that fails the session is over.
 */
export interface Problem {
  status: number;
  code: string;
  message_en: string;
  message_ar: string;
  requiredPlan?: string;
  requiredPermission?: string;
  suggestion?: { code: string; message_en: string; message_ar: string; [key: string]: unknown };
  [key: string]: unknown;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message_en);
  }
}

const NETWORK: Problem = { status: 0, code: 'network_error', message_en: '', message_ar: '' };

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

/** A `Blob` (a chosen file) is sent as its raw bytes, as the file routes take it; anything else as JSON. */
async function send(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const raw = body instanceof Blob;
  if (body !== undefined) headers['Content-Type'] = raw ? 'application/octet-stream' : 'application/json';
  if (method !== 'GET' && method !== 'HEAD') {
    const csrf = csrfToken();
    if (csrf) headers['X-CSRF-Token'] = csrf;
  }
  try {
    const payload = body === undefined ? undefined : raw ? body : JSON.stringify(body);
    return await fetch(path, { method, headers, credentials: 'same-origin', body: payload });
  } catch {
    throw new ApiError(NETWORK);
  }
}

async function problemOf(response: Response): Promise<Problem> {
  const body = (await response.json().catch(() => null)) as Problem | null;
  return body && typeof body.code === 'string'
    ? { ...body, status: response.status }
    : { ...NETWORK, status: response.status, code: 'unexpected' };
}

/**
 * Whether the session's readable cookie is set. It lives exactly as long as the access cookie (a staff
 * sign-in's 15 minutes, or a support session), so without it there is no access token to present.
 */
export const hasAccessCookie = (): boolean => csrfToken() !== undefined;

/** One refresh at a time, whatever the number of calls that found their token expired. */
export function refresh(): Promise<boolean> {
  refreshing ??= send('POST', '/admin/auth/refresh', {})
    // Its body (no tokens: they are cookies) is read to the end all the same, so that the request ends with it.
    .then((response) => response.arrayBuffer().then(() => response.ok))
    .catch(() => false)
    .finally(() => setTimeout(() => (refreshing = null), 0));
  return refreshing;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response = await send(method, path, body);
  if (response.status === 401 && !path.startsWith('/admin/auth/sign-in') && !path.startsWith('/admin/auth/refresh')) {
    const problem = await problemOf(response.clone());
    // An expired access cookie is dropped by the browser, so `unauthenticated` is worth one refresh too.
    if (problem.code === 'token_expired' || problem.code === 'unauthenticated') {
      if (await refresh()) response = await send(method, path, body);
      if (response.status === 401) {
        onSessionEnded();
        throw new ApiError(await problemOf(response));
      }
    }
  }
  if (!response.ok) throw new ApiError(await problemOf(response));
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
