import { beforeAll, describe, expect, it } from 'vitest';
import { SecretsRetentionScheduler } from '../../src/account/secrets-retention.scheduler.js';
import { type TestStore } from '../support/fixtures.js';
import { useTestApp } from '../support/harness.js';

describe('retention of one-time codes, failed sign-ins and outbox messages', () => {
  const t = useTestApp();
  let store: TestStore;
  beforeAll(async () => {
    store = await t.store();
  });

  it('deletes what is past its use and keeps what may still be needed', async () => {
    const code = (email: string, age: string, consumed: boolean) =>
      t.db.query(
        `insert into one_time_codes (store_id, email_normalized, code_hash, purpose, created_at, expires_at, consumed_at)
         values ($1, $2, 'x', 'sign_in', now() - $3::interval, now() - $3::interval + interval '10 minutes',
                 case when $4 then now() - $3::interval else null end)`,
        [store.storeId, email, age, consumed],
      );
    await code('old-expired@example.com', '2 days', false);
    await code('old-used@example.com', '3 days', true);
    await code('recent@example.com', '1 hour', true);
    await code('live@example.com', '1 minute', false);
    for (const age of ['2 hours', '5 minutes']) {
      await t.db.query(
        `insert into sign_in_failures (store_id, email_normalized, created_at) values ($1, 'a@example.com', now() - $2::interval)`,
        [store.storeId, age],
      );
    }
    for (const age of ['8 days', '1 day']) {
      await t.db.query(
        `insert into notification_outbox (store_id, recipient, template, locale, subject, body_text, created_at)
         values ($1, 'a@example.com', 'sign_in_code', 'en', 's', 'b', now() - $2::interval)`,
        [store.storeId, age],
      );
    }

    const purged = await t.app.get(SecretsRetentionScheduler).purge();
    expect(purged).toEqual({ oneTimeCodes: 2, signInFailures: 1, outboxMessages: 1 });
    const left = await t.db.query(`select email_normalized from one_time_codes where store_id = $1 order by 1`, [store.storeId]);
    expect(left.rows.map((row) => row.email_normalized)).toEqual(['live@example.com', 'recent@example.com']);
  });
});
