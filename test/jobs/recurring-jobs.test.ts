import { describe, expect, it } from 'vitest';
import { JOB_SCHEMA } from '../../src/infra/jobs/job-queue.js';
import { useTestApps } from '../support/harness.js';
import { eventually } from '../support/waiting.js';

/**
 * The periodic jobs run on pg-boss: with two instances of the service on one database, every due
 * time of a schedule runs once, on one of them. (Cron's granularity is the minute, so this waits for
 * one minute's run.)
 */
describe('recurring jobs across instances', () => {
  const [a] = useTestApps(2, {}, { schedulers: true, ownDatabase: true });

  it('schedules every periodic job once, and two instances run each due minute’s capture retry exactly once', async () => {
    const schedules = await a.db.rows<{ name: string; cron: string }>(`select name, cron from ${JOB_SCHEMA}.schedule order by name`);
    expect(schedules).toEqual([
      { name: 'account.secrets-retention', cron: '0 * * * *' },
      { name: 'auth.signing-key-rotation', cron: '0 * * * *' },
      { name: 'dashboard.sign-in-failures-retention', cron: '0 * * * *' },
      { name: 'data-hub.flows-dispatch', cron: '* * * * *' },
      { name: 'data-hub.run-lists-retention', cron: '30 3 * * *' },
      { name: 'insights.exports-expiry', cron: '*/15 * * * *' },
      { name: 'insights.schedules-dispatch', cron: '* * * * *' },
      { name: 'payments.capture-retry', cron: '* * * * *' },
    ]);
    // Both instances registered with the queue, and both work its jobs.
    expect(await a.db.rows(`select application_name from ${JOB_SCHEMA}.instance where stopped_on is null`)).toEqual([
      { application_name: 'storefront-jobs' },
      { application_name: 'storefront-jobs' },
    ]);

    const runs = () =>
      a.db.rows<{ minute: string; runs: number; completed: number }>(
        `select to_char(date_trunc('minute', created_on), 'HH24:MI') as minute, count(*)::int as runs,
                count(*) filter (where state = 'completed')::int as completed
         from ${JOB_SCHEMA}.job where name = 'payments.capture-retry' group by 1 order by 1`,
      );
    const first = await eventually(runs, (rows) => rows.some((row) => row.completed > 0), 100_000);
    expect(first.length, 'no capture retry ran within 100 s').toBeGreaterThan(0);
    // Both instances poll the queue; give the slower one time to have doubled it, if it could.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const minute of await runs()) expect(minute.runs, minute.minute).toBe(1);
    // pg-boss's own cron pass files one job per schedule and due minute, however many instances ran it.
    const sends = await a.db.rows<{ runs: number }>(
      `select count(*)::int as runs from ${JOB_SCHEMA}.job where name = '__pgboss__send-it' group by singleton_key, singleton_on`,
    );
    expect(sends.length).toBeGreaterThan(0);
    for (const send of sends) expect(send.runs).toBe(1);
  }, 120_000);
});
