import type { LightMyRequestResponse } from 'fastify';

/** An inject() answer, or a fetch() one normalised to the same shape. */
export interface ResponseLike {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** A fetch() answer in the shape of an inject() answer, so the same assertions read both. */
export async function fromFetch(response: Response): Promise<ResponseLike> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  const setCookie = response.headers.getSetCookie();
  if (setCookie.length > 0) headers['set-cookie'] = setCookie;
  return { statusCode: response.status, headers, body: await response.text() };
}

export function parse(response: ResponseLike | LightMyRequestResponse): Record<string, any> {
  try {
    return JSON.parse(response.body) as Record<string, any>;
  } catch {
    throw new Error(`response is not JSON (${response.statusCode}): ${response.body.slice(0, 200)}`);
  }
}

/** Expects the status (a 2xx) and returns the JSON body. */
export function ok(response: ResponseLike | LightMyRequestResponse, status = 200): Record<string, any> {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body.slice(0, 500)}`);
  return parse(response);
}

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flag attributes map to true. */
  attributes: Record<string, string | true>;
  raw: string;
}

/** The Set-Cookie headers of a response, by cookie name. */
export function setCookies(response: ResponseLike | LightMyRequestResponse): Record<string, SetCookie> {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  const cookies: Record<string, SetCookie> = {};
  for (const raw of lines) {
    const [pair, ...attributeParts] = raw.split(';').map((part) => part.trim());
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator);
    const attributes: Record<string, string | true> = {};
    for (const part of attributeParts) {
      const at = part.indexOf('=');
      if (at === -1) attributes[part.toLowerCase()] = true;
      else attributes[part.slice(0, at).toLowerCase()] = part.slice(at + 1);
    }
    cookies[name] = { name, value: decodeURIComponent(pair.slice(separator + 1)), attributes, raw };
  }
  return cookies;
}
