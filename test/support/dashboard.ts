import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { LightMyRequestResponse } from 'fastify';
import { randomBytes } from 'node:crypto';
import { StaffMembers } from '../../src/auth/staff/staff-members.service.js';
import { SupportSessions } from '../../src/auth/support/support-sessions.service.js';
import type { StaffRole } from '../../src/common/permissions.js';
import { ok } from './responses.js';

export interface TestStaff {
  id: string;
  storeId: string;
  email: string;
  password: string;
  role: StaffRole;
}

/** A staff member of the store, as `staff add` makes one (with its generated password). */
export async function addStaff(
  app: NestFastifyApplication,
  storeId: string,
  role: StaffRole = 'owner',
  options: { permissions?: string[]; email?: string; name?: string } = {},
): Promise<TestStaff> {
  const email = options.email ?? `staff-${randomBytes(4).toString('hex')}@example.com`;
  const { staff, password } = await app
    .get(StaffMembers)
    .add(storeId, { email, name: options.name ?? 'Test Staff', role, permissions: options.permissions });
  return { id: staff.id, storeId, email, password, role };
}

/**
 * A client address of its own for each sign-in unless one is given (an IPv6 documentation address):
 * failed sign-ins are also limited per client, and every test file's requests come from one host.
 */
export function clientAddress(): string {
  return `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
}

export function staffSignIn(
  app: NestFastifyApplication,
  body: Record<string, unknown>,
  remoteAddress = clientAddress(),
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/admin/auth/sign-in',
    headers: { 'content-type': 'application/json' },
    payload: body,
    remoteAddress,
  });
}

/** A signed-in staff member's bearer session (201 body). */
export async function staffSession(app: NestFastifyApplication, staff: TestStaff): Promise<Record<string, any>> {
  return ok(await staffSignIn(app, { storeId: staff.storeId, email: staff.email, password: staff.password }), 201);
}

/** A bearer access token of the staff member. */
export async function staffToken(app: NestFastifyApplication, staff: TestStaff): Promise<string> {
  return (await staffSession(app, staff)).accessToken;
}

/** A support session on the store, as `support open` opens one: its id and its access token. */
export async function supportSession(
  app: NestFastifyApplication,
  storeId: string,
  minutes?: number,
): Promise<{ id: string; token: string; expiresAt: string }> {
  const opened = await app.get(SupportSessions).open(storeId, 'agent@support.example', 'customer asked for help with a report', minutes);
  return { id: opened.supportSession.id, token: opened.accessToken, expiresAt: opened.supportSession.expiresAt };
}

/** A dashboard call with a bearer token (JSON body for anything but GET and HEAD). */
export function adminCall(
  app: NestFastifyApplication,
  method: string,
  url: string,
  token: string | undefined,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(hasBody ? { payload: JSON.stringify(payload ?? {}) } : {}),
  });
}
