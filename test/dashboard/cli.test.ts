import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/common/permissions.js';
import { buildOnce } from '../support/build.js';
import { type CliRun, runCli } from '../support/cli.js';
import { adminCall, staffSignIn } from '../support/dashboard.js';
import { UUID, ISO_UTC } from '../support/formats.js';
import { useTestApp } from '../support/harness.js';
import { expectProblem } from '../support/problem.js';
import { ok } from '../support/responses.js';
import { eventually } from '../support/waiting.js';

const cli = (...args: string[]) => runCli(args);
const UNREACHABLE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' };

function expectSuccess(run: CliRun): any {
  expect(run.code, run.stderr || run.stdout).toBe(0);
  expect(run.json, `stdout is not JSON: ${run.stdout}`).toBeDefined();
  return run.json;
}

function expectFailure(run: CliRun, exitCode: number, code: string): void {
  expect(run.code, run.stdout).toBe(exitCode);
  expect(run.json, `stdout is not JSON: ${run.stdout}`).toEqual({ error: { code, message: expect.any(String) } });
}

describe('command line: staff, support sessions and plans (contract section 7)', () => {
  const t = useTestApp();
  let storeId: string;

  beforeAll(async () => {
    await buildOnce();
    storeId = (await t.store()).storeId;
  }, 120_000);

  it('staff add prints the member and a generated password, once; only its argon2id hash is kept, and it signs in', async () => {
    const out = expectSuccess(
      await cli('staff', 'add', '--store', storeId, '--email', 'Lina@Example.com', '--name', 'Lina', '--role', 'analyst'),
    );
    expect(Object.keys(out)).toEqual(['staff', 'password']);
    expect(out.staff).toEqual({
      id: expect.stringMatching(UUID),
      email: 'Lina@Example.com',
      name: 'Lina',
      role: 'analyst',
      permissions: PERMISSIONS.filter(
        (permission) =>
          /^insights\.\w+\.view$/.test(permission) || ['insights.builder.use', 'insights.reports.manage'].includes(permission),
      ),
    });
    expect(out.password).toMatch(/^[A-Za-z0-9]{24}$/);
    const [row] = await t.db.rows('select row_to_json(m)::text as whole, password_hash from staff_members m where id = $1', [out.staff.id]);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.whole).not.toContain(out.password);

    const signedIn = await staffSignIn(t.app, { storeId, email: 'lina@example.com', password: out.password });
    expect(signedIn.statusCode, signedIn.body).toBe(201);
  });

  it('a custom role takes --permissions; a second member with the same address is refused', async () => {
    const out = expectSuccess(
      await cli(
        'staff',
        'add',
        '--store',
        storeId,
        '--email',
        'ops@example.com',
        '--name',
        'Ops',
        '--role',
        'custom',
        '--permissions',
        'data.flows.read,insights.sales.view',
      ),
    );
    expect(out.staff).toMatchObject({ role: 'custom', permissions: ['insights.sales.view', 'data.flows.read'] });
    expectFailure(
      await cli('staff', 'add', '--store', storeId, '--email', 'OPS@example.com', '--name', 'Again', '--role', 'viewer'),
      1,
      'STAFF_EXISTS',
    );
    expectFailure(
      await cli(
        'staff',
        'add',
        '--store',
        '00000000-0000-4000-8000-000000000000',
        '--email',
        'x@example.com',
        '--name',
        'X',
        '--role',
        'viewer',
      ),
      1,
      'STORE_NOT_FOUND',
    );
  });

  it('staff list shows the members, removed ones marked, and never a password or a hash', async () => {
    const own = (await t.store()).storeId;
    const added = expectSuccess(await cli('staff', 'add', '--store', own, '--email', 'a@example.com', '--name', 'A', '--role', 'owner'));
    const other = expectSuccess(await cli('staff', 'add', '--store', own, '--email', 'b@example.com', '--name', 'B', '--role', 'viewer'));
    expectSuccess(await cli('staff', 'remove', '--staff', other.staff.id));
    const run = await cli('staff', 'list', '--store', own);
    const out = expectSuccess(run);
    expect(out.staff.map((member: { email: string }) => member.email)).toEqual(['a@example.com', 'b@example.com']);
    for (const member of out.staff) {
      expect(Object.keys(member).sort()).toEqual(['createdAt', 'email', 'id', 'name', 'permissions', 'removedAt', 'role', 'updatedAt']);
      expect(member.createdAt).toMatch(ISO_UTC);
    }
    expect(out.staff[0].removedAt).toBeNull();
    expect(out.staff[1].removedAt).toMatch(ISO_UTC);
    expect(run.stdout).not.toContain(added.password);
    expect(run.stdout).not.toContain(other.password);
    expect(run.stdout).not.toMatch(/argon2|hash/i);
  });

  it('staff set-role and staff remove take effect on the running service', async () => {
    const added = expectSuccess(
      await cli('staff', 'add', '--store', storeId, '--email', 'sam@example.com', '--name', 'Sam', '--role', 'owner'),
    );
    const session = ok(await staffSignIn(t.app, { storeId, email: 'sam@example.com', password: added.password }), 201);
    const me = () => adminCall(t.app, 'GET', '/admin/auth/me', session.accessToken);
    expect(ok(await me()).staff.role).toBe('owner');

    const changed = expectSuccess(
      await cli('staff', 'set-role', '--staff', added.staff.id, '--role', 'custom', '--permissions', 'insights.finance.view'),
    );
    expect(changed).toEqual({ staff: { ...added.staff, role: 'custom', permissions: ['insights.finance.view'] } });
    const seen = await eventually(me, (response) => response.statusCode === 200 && response.json().staff.role === 'custom');
    expect(seen.json().permissions).toEqual(['insights.finance.view']);

    const removed = expectSuccess(await cli('staff', 'remove', '--staff', added.staff.id));
    expect(removed).toEqual({ staff: { id: added.staff.id, removedAt: expect.stringMatching(ISO_UTC), sessionsEnded: 1 } });
    expectProblem(await eventually(me, (response) => response.statusCode === 401), 401, 'unauthenticated');

    expectFailure(await cli('staff', 'remove', '--staff', added.staff.id), 1, 'STAFF_REMOVED');
    expectFailure(await cli('staff', 'set-role', '--staff', added.staff.id, '--role', 'viewer'), 1, 'STAFF_REMOVED');
    expectFailure(await cli('staff', 'remove', '--staff', '00000000-0000-4000-8000-000000000000'), 1, 'STAFF_NOT_FOUND');
  });

  it('support open prints the session and its token; support list records it; support close ends it', async () => {
    const opened = expectSuccess(
      await cli(
        'support',
        'open',
        '--store',
        storeId,
        '--agent',
        'helper@support.example',
        '--reason',
        'merchant cannot find a report',
        '--minutes',
        '30',
      ),
    );
    expect(Object.keys(opened)).toEqual(['supportSession', 'accessToken']);
    expect(opened.supportSession).toEqual({
      id: expect.stringMatching(UUID),
      storeId,
      agent: 'helper@support.example',
      expiresAt: expect.stringMatching(ISO_UTC),
    });
    const minutes = (Date.parse(opened.supportSession.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(28);
    expect(minutes).toBeLessThanOrEqual(30);
    const me = () => adminCall(t.app, 'GET', '/admin/auth/me', opened.accessToken);
    expect(ok(await me())).toMatchObject({ staff: null, readOnly: true, support: { agent: 'helper@support.example' } });

    const listed = expectSuccess(await cli('support', 'list', '--store', storeId));
    expect(listed.supportSessions).toContainEqual({
      id: opened.supportSession.id,
      storeId,
      agent: 'helper@support.example',
      reason: 'merchant cannot find a report',
      openedAt: expect.stringMatching(ISO_UTC),
      expiresAt: opened.supportSession.expiresAt,
      closedAt: null,
      status: 'open',
    });
    expect(JSON.stringify(listed)).not.toContain(opened.accessToken);

    const closed = expectSuccess(await cli('support', 'close', '--session', opened.supportSession.id));
    expect(closed).toEqual({ supportSession: { id: opened.supportSession.id, closedAt: expect.stringMatching(ISO_UTC) } });
    expectProblem(await eventually(me, (response) => response.statusCode === 401), 401, 'unauthenticated');
    const after = expectSuccess(await cli('support', 'list', '--store', storeId));
    expect(after.supportSessions.find((session: { id: string }) => session.id === opened.supportSession.id)).toMatchObject({
      status: 'closed',
      closedAt: closed.supportSession.closedAt,
    });
    expectFailure(await cli('support', 'close', '--session', '00000000-0000-4000-8000-000000000000'), 1, 'SUPPORT_SESSION_NOT_FOUND');
  });

  it('store plan changes the plan, and the running service’s entitlements follow', async () => {
    const added = expectSuccess(
      await cli('staff', 'add', '--store', storeId, '--email', 'plan@example.com', '--name', 'P', '--role', 'owner'),
    );
    const session = ok(await staffSignIn(t.app, { storeId, email: 'plan@example.com', password: added.password }), 201);
    const me = () => adminCall(t.app, 'GET', '/admin/auth/me', session.accessToken);
    const out = expectSuccess(await cli('store', 'plan', '--store', storeId, '--plan', 'pro'));
    expect(out).toEqual({ store: { id: storeId, name: expect.any(String), plan: 'pro' } });
    const seen = await eventually(me, (response) => response.json().store.plan === 'pro');
    expect(seen.json().entitlements).toContain('area:behaviour');
    expectFailure(await cli('store', 'plan', '--store', '00000000-0000-4000-8000-000000000000', '--plan', 'pro'), 1, 'STORE_NOT_FOUND');
  });

  it('refuses bad usage with exit 2 before opening any database; a password is never taken on the command line', async () => {
    const s = storeId;
    const staffId = '00000000-0000-4000-8000-000000000000';
    const cases = [
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X', '--role', 'superuser'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X', '--role', 'viewer', '--permissions', 'insights.sales.view'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X', '--role', 'custom'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X', '--role', 'custom', '--permissions', 'insights.everything'],
      ['staff', 'add', '--store', s, '--email', 'not-an-email', '--name', 'X', '--role', 'viewer'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', '  ', '--role', 'viewer'],
      ['staff', 'add', '--store', s, '--email', 'x@example.com', '--name', 'X', '--role', 'viewer', '--password', 'hunter22'],
      ['staff', 'add', '--store', 'demo', '--email', 'x@example.com', '--name', 'X', '--role', 'viewer'],
      ['staff', 'list'],
      ['staff', 'set-role', '--staff', 'nobody', '--role', 'viewer'],
      ['staff', 'set-role', '--staff', staffId],
      ['staff', 'remove'],
      ['support', 'open', '--store', s, '--agent', 'a@support.example'],
      ['support', 'open', '--store', s, '--agent', 'someone', '--reason', 'a good reason'],
      ['support', 'open', '--store', s, '--agent', 'a@support.example', '--reason', 'ok', '--minutes', '10'],
      ['support', 'open', '--store', s, '--agent', 'a@support.example', '--reason', 'a good reason', '--minutes', '0'],
      ['support', 'open', '--store', s, '--agent', 'a@support.example', '--reason', 'a good reason', '--minutes', '481'],
      ['support', 'open', '--store', s, '--agent', 'a@support.example', '--reason', 'a good reason', '--minutes', 'an hour'],
      ['support', 'list'],
      ['support', 'close', '--session', 'last'],
      ['store', 'plan', '--store', s],
      ['store', 'plan', '--store', s, '--plan', 'platinum'],
    ];
    const runs = await Promise.all(cases.map((args) => runCli(args, UNREACHABLE)));
    runs.forEach((run, index) => {
      expectFailure(run, 2, 'USAGE');
      expect(run.json.error.message, cases[index].join(' ')).toMatch(/usage:/);
    });
    const [{ count }] = await t.db.rows(`select count(*)::int as count from staff_members where email_normalized = 'x@example.com'`);
    expect(count).toBe(0);
  }, 120_000);
});
