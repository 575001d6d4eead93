import { Controller, Get } from '@nestjs/common';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { RequirePermission } from '../../src/auth/access/decorators.js';
import { DASHBOARD_CHANNEL, DashboardPrincipals } from '../../src/auth/dashboard/dashboard-principals.js';
import { StaffMembers } from '../../src/auth/staff/staff-members.service.js';
import { COMMANDS } from '../../src/cli/commands.js';
import { ChangeFeed } from '../../src/infra/database/change-feed.js';
import { STORE_CHANNEL, StoreService } from '../../src/stores/store.service.js';
import { notified } from '../auth/support.js';
import { addStaff, adminCall, staffSession, supportSession } from '../support/dashboard.js';
import { useTestApps, type Harness } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';

@Controller('admin/test-only/propagation')
class PropagationProbeController {
  @Get('reports')
  @RequirePermission('insights.reports.manage')
  reports() {
    return { served: true };
  }

  @Get('customers')
  @RequirePermission('insights.customers.view')
  customers() {
    return { served: true };
  }
}

/** Resolves once `instance` has handled `payload` on `channel` (its services subscribed first, so they have too). */
const heard = (instance: Harness, channel: string, payload: string) => notified(instance.app.get(ChangeFeed), channel, payload);

/**
 * Contract section 7: permissions are read at request time, cached per instance and invalidated on
 * every instance. Each change below is made through the service the command line calls, on instance
 * A, and must hold on instance B's next request. B's principal cache lives 15 s, so only the change
 * feed can make B see a change within these tests.
 */
describe('dashboard changes reach every instance', () => {
  const [a, b] = useTestApps(2, {}, { controllers: [PropagationProbeController] });
  let storeId: string;

  beforeAll(async () => {
    storeId = (await a.store()).storeId;
    await a.app.get(StoreService).setPlan(storeId, 'growth');
  });

  it('staff set-role on A: the removed permission is refused on B’s next request', async () => {
    const analyst = await addStaff(a.app, storeId, 'analyst');
    const { accessToken } = await staffSession(a.app, analyst);
    expect(ok(await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken))).toEqual({ served: true });

    const arrived = heard(b, DASHBOARD_CHANNEL, `staff:${analyst.id}`);
    const printed = (await COMMANDS['staff set-role'].run(a.app, { staff: analyst.id, role: 'viewer' })) as { staff: { role: string } };
    expect(printed.staff.role).toBe('viewer');
    await arrived;

    const refused = await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken);
    expect(expectProblem(refused, 403, 'missing_permission').requiredPermission).toBe('insights.reports.manage');
    expect(ok(await adminCall(b.app, 'GET', '/admin/auth/me', accessToken)).staff.role).toBe('viewer');
  });

  it('staff remove on A: B refuses the member’s token at once, and their refresh token', async () => {
    const member = await addStaff(a.app, storeId, 'viewer');
    const session = await staffSession(a.app, member);
    expect((await adminCall(b.app, 'GET', '/admin/auth/me', session.accessToken)).statusCode).toBe(200);

    const arrived = heard(b, DASHBOARD_CHANNEL, `staff:${member.id}`);
    const printed = (await COMMANDS['staff remove'].run(a.app, { staff: member.id })) as { staff: { sessionsEnded: number } };
    expect(printed.staff.sessionsEnded).toBe(1);
    await arrived;

    expectProblem(await adminCall(b.app, 'GET', '/admin/auth/me', session.accessToken), 401, 'unauthenticated');
    const refreshed = await b.app.inject({
      method: 'POST',
      url: '/admin/auth/refresh',
      headers: { 'content-type': 'application/json' },
      payload: { refreshToken: session.refreshToken },
    });
    expectProblem(refreshed, 401, 'invalid_refresh_token');
  });

  it('store plan downgrade on A: B refuses what the plan no longer includes', async () => {
    const own = (await a.store()).storeId;
    await a.app.get(StoreService).setPlan(own, 'growth');
    const { accessToken } = await staffSession(a.app, await addStaff(a.app, own, 'owner'));
    expect((await adminCall(b.app, 'GET', '/admin/test-only/propagation/customers', accessToken)).statusCode).toBe(200);

    const arrived = heard(b, STORE_CHANNEL, own);
    const printed = (await COMMANDS['store plan'].run(a.app, { store: own, plan: 'basic' })) as { store: { plan: string } };
    expect(printed.store.plan).toBe('basic');
    await arrived;

    const refused = await adminCall(b.app, 'GET', '/admin/test-only/propagation/customers', accessToken);
    expect(expectProblem(refused, 403, 'plan_not_entitled').requiredPlan).toBe('growth');
    expect(ok(await adminCall(b.app, 'GET', '/admin/auth/me', accessToken)).store.plan).toBe('basic');
  });

  it('support close on A: B refuses the support session’s token at once', async () => {
    const support = await supportSession(a.app, storeId);
    expect((await adminCall(b.app, 'GET', '/admin/auth/me', support.token)).statusCode).toBe(200);

    const arrived = heard(b, DASHBOARD_CHANNEL, `session:${support.id}`);
    await COMMANDS['support close'].run(a.app, { session: support.id });
    await arrived;

    expectProblem(await adminCall(b.app, 'GET', '/admin/auth/me', support.token), 401, 'unauthenticated');
  });

  it('sign-out on A: B refuses the session’s access token at once', async () => {
    const { accessToken } = await staffSession(a.app, await addStaff(a.app, storeId, 'viewer'));
    expect((await adminCall(b.app, 'GET', '/admin/auth/me', accessToken)).statusCode).toBe(200);
    const sessionId = sessionOf(accessToken);

    const arrived = heard(b, DASHBOARD_CHANNEL, `session:${sessionId}`);
    expect((await adminCall(a.app, 'POST', '/admin/auth/sign-out', accessToken)).statusCode).toBe(204);
    await arrived;

    expectProblem(await adminCall(b.app, 'GET', '/admin/auth/me', accessToken), 401, 'unauthenticated');
  });

  it('the cache is real: a change written behind the services’ back is not seen until it is announced', async () => {
    const analyst = await addStaff(a.app, storeId, 'analyst');
    const { accessToken } = await staffSession(a.app, analyst);
    expect((await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken)).statusCode).toBe(200);

    await b.db.query(`update staff_members set role = 'viewer' where id = $1`, [analyst.id]);
    expect((await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken)).statusCode).toBe(200);

    const arrived = heard(b, DASHBOARD_CHANNEL, `staff:${analyst.id}`);
    await a.app.get(DashboardPrincipals).publish(`staff:${analyst.id}`);
    await arrived;
    expectProblem(await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken), 403, 'missing_permission');
  });

  it('a lookup in flight when a change is announced does not cache what it read', async () => {
    const member = await addStaff(a.app, storeId, 'analyst');
    const { accessToken } = await staffSession(a.app, member);
    const principalsOfB = b.app.get(DashboardPrincipals);

    // Fault injection: B's real read runs, but its answer is held back until the removal has been
    // committed and announced, as a slow network or a busy event loop can do.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readDone!: () => void;
    const read = new Promise<void>((resolve) => (readDone = resolve));
    const prototype = DashboardPrincipals.prototype as unknown as { readStaff: (sessionId: string) => Promise<unknown> };
    const readStaff = prototype.readStaff;
    const spy = vi.spyOn(prototype, 'readStaff').mockImplementation(async function (this: DashboardPrincipals, sessionId: string) {
      const result = await readStaff.call(this, sessionId);
      if (this === principalsOfB) {
        readDone();
        await held;
      }
      return result;
    });
    try {
      const inFlight = adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken);
      await read; // B has read the member as present ...
      const arrived = heard(b, DASHBOARD_CHANNEL, `staff:${member.id}`);
      await a.app.get(StaffMembers).remove(member.id);
      await arrived; // ... and has handled the removal before that read answers.
      release();
      // Began before the removal: may answer as before.
      expect((await inFlight).statusCode).toBe(200);
    } finally {
      spy.mockRestore();
      release();
    }
    // Without care the stale principal would now sit in B's cache for 15 s.
    expectProblem(await adminCall(b.app, 'GET', '/admin/test-only/propagation/reports', accessToken), 401, 'unauthenticated');
  });
});

function sessionOf(accessToken: string): string {
  return JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).sid;
}
