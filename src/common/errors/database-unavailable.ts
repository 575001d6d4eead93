import { ConnectionException } from '@mikro-orm/core';

/** SQLSTATE classes and codes meaning "the database cannot serve right now", not "the query is wrong". */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|connection is closed|not currently accepting connections/i;

/** True when an error says the database is down or unreachable: answered 503, not 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionException) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code))) return true;
  return UNAVAILABLE_MESSAGE.test(error.message);
}
