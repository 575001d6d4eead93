import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { COMMANDS, CommandError, type Options } from './cli/commands.js';
import { CliModule } from './cli/cli.module.js';
import { CatalogueNotEmptyError } from './storefront/catalogue/catalogue-seeder.js';
import { ConfigError, loadConfig } from './infra/config/app-config.js';
import { openDatabase } from './infra/database/open-database.js';
import { createLogger, NestPinoLogger } from './infra/logging/logger.js';

/** Operator command line: JSON on stdout, logs on stderr, works with or without a running server. */
async function main(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) {
    return fail(new CommandError('USAGE', `usage:\n${Object.values(COMMANDS).map((c) => `  cli ${c.usage}`).join('\n')}`, 2));
  }
  let options: Options;
  try {
    const parsed = parseArgs({
      args: argv.slice(2),
      options: Object.fromEntries(command.options.map((option) => [option, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    });
    options = parsed.values as Options;
  } catch (error) {
    return fail(new CommandError('USAGE', `${(error as Error).message}\nusage: cli ${command.usage}`, 2));
  }

  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL, 2);
  const database = await openDatabase(config, logger);
  try {
    const app = await NestFactory.createApplicationContext(CliModule.forRoot(config, database), {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
    });
    try {
      const result = await command.run(app, options);
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      return 0;
    } finally {
      await app.close();
    }
  } catch (error) {
    if (error instanceof CatalogueNotEmptyError) return fail(new CommandError('CATALOGUE_NOT_EMPTY', error.message));
    return fail(error);
  } finally {
    await database.stop();
  }
}

function fail(error: unknown): number {
  const known = error instanceof CommandError || error instanceof ConfigError;
  const code = error instanceof CommandError ? error.code : error instanceof ConfigError ? 'INVALID_CONFIGURATION' : 'FAILED';
  const message = known ? (error as Error).message : `unexpected failure: ${(error as Error)?.message ?? String(error)}`;
  process.stdout.write(JSON.stringify({ error: { code, message } }, null, 2) + '\n');
  process.stderr.write(`${message}\n`);
  return error instanceof CommandError ? error.exitCode : 1;
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => process.exit(fail(error)),
);
