import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { CommandError, type Options } from './cli/command.js';
import { COMMANDS } from './cli/commands.js';

/**
 * Operator command line: JSON on stdout, logs on stderr, works with or without a running server.
 * The arguments are checked before anything heavy is loaded or any database is opened (or, with the
 * embedded default, started), so a usage error is immediate and has no side effect.
 */
async function main(argv: string[]): Promise<number> {
  // Commands are two words (`staff add`) or three (`datahub connections list`).
  const words = COMMANDS[argv.slice(0, 3).join(' ')] ? 3 : 2;
  const command = COMMANDS[argv.slice(0, words).join(' ')];
  if (!command) {
    return fail(
      new CommandError(
        'USAGE',
        `usage:\n${Object.values(COMMANDS)
          .map((c) => `  cli ${c.usage}`)
          .join('\n')}`,
        2,
      ),
    );
  }
  let options: Options;
  try {
    const parsed = parseArgs({
      args: argv.slice(words),
      options: Object.fromEntries(command.options.map((option) => [option, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    });
    options = parsed.values as Options;
    await command.check(options);
  } catch (error) {
    if (error instanceof CommandError)
      return fail(new CommandError(error.code, `${error.message}\nusage: cli ${command.usage}`, error.exitCode));
    return fail(new CommandError('USAGE', `${(error as Error).message}\nusage: cli ${command.usage}`, 2));
  }

  const [{ NestFactory }, { CliModule }, { ConfigError, loadConfig }, { openDatabase }, { createLogger, NestPinoLogger }] =
    await Promise.all([
      import('@nestjs/core'),
      import('./cli/cli.module.js'),
      import('./infra/config/app-config.js'),
      import('./infra/database/open-database.js'),
      import('./infra/logging/logger.js'),
    ]);
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) return fail(new CommandError('INVALID_CONFIGURATION', error.message));
    throw error;
  }
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
    return fail(error);
  } finally {
    await database.stop();
  }
}

function fail(error: unknown): number {
  const known = error instanceof CommandError;
  const code = known ? error.code : 'FAILED';
  const message = known ? error.message : `unexpected failure: ${(error as Error)?.message ?? String(error)}`;
  process.stdout.write(JSON.stringify({ error: { code, message } }, null, 2) + '\n');
  process.stderr.write(`${message}\n`);
  return known ? error.exitCode : 1;
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => process.exit(fail(error)),
);
