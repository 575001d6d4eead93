import { Migration } from '@mikro-orm/migrations';

/**
 * JIT compilation off for the service's database, as a setting of the database rather than of each
 * connection: the service's statements are short, and compiling one (past a cost threshold the reports'
 * aggregations reach on big stores) costs more than it saves. Connections ask for it at start-up
 * (`options=-c jit=off`), which a pooler such as PgBouncer refuses; a database setting reaches every
 * server connection it opens. A role that may not alter the database keeps the default, with a notice in
 * the server's log.
 */
export class Migration0024DatabaseSettings extends Migration {
  override name = '0024-database-settings';

  override up(): void {
    this.addSql(`
      do $$
      begin
        execute format('alter database %I set jit = off', current_database());
      exception when insufficient_privilege then
        raise notice 'jit stays on: % may not alter database %', current_user, current_database();
      end $$;
    `);
  }
}
