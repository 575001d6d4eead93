import { MikroORM } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';

const MIGRATION_LOCK = 727_001;

/** Brings the schema up to date before anything else touches it; instances starting together take turns. */
@Injectable()
export class MigrationRunner implements OnModuleInit {
  private readonly logger = new Logger(MigrationRunner.name);

  constructor(private readonly orm: MikroORM) {}

  async onModuleInit(): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(em.getKysely());
      const applied = await this.orm.migrator.up();
      if (applied.length > 0) this.logger.log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
    });
  }
}
