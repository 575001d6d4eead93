import { Migration } from '@mikro-orm/migrations';

/**
 * Sessions of the demo's history: searches and orders name the session they belong to (a foreign key),
 * so the demo writes those sessions as rows. No API key ever minted them, so a session's key may be
 * null, but only for such a history session: revoked from the start, with reason `history`, and
 * without any refresh token. Every session a key mints still names its key.
 */
export class Migration0008HistorySessions extends Migration {
  override name = '0008-history-sessions';

  override up(): void {
    this.addSql(`
      alter table sessions alter column api_key_id drop not null;
      alter table sessions add constraint sessions_api_key_or_history check (api_key_id is not null or revoked_reason = 'history');
    `);
  }
}
