import type { LoggerService } from '@nestjs/common';
import { stripVTControlCharacters } from 'node:util';
import { pino, type Logger } from 'pino';

/** Paths that may carry a secret; pino replaces them before a line is written. */
const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.passwordHash',
  '*.password_hash',
  '*.codeHash',
  '*.code_hash',
  '*.refreshToken',
  '*.accessToken',
  '*.key',
];

/** Structured JSON logs. The server writes to stdout; the command line writes to stderr so stdout stays JSON. */
export function createLogger(level: string, destination: 1 | 2 | pino.DestinationStream = 1): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'storefront' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    typeof destination === 'number' ? pino.destination({ dest: destination, sync: destination === 2 }) : destination,
  );
}

/** Nest's start-up chatter: a line per module and per route, useful when debugging the wiring only. */
const START_UP_CONTEXTS = new Set(['NestFactory', 'NestApplication', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/**
 * Lets Nest's own messages, and those of libraries logging through Nest (MikroORM), go through the same
 * JSON logger, without the colour codes some of them carry.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    if (context && START_UP_CONTEXTS.has(context)) this.logger.debug({ context }, plain(message));
    else this.logger.info({ context }, plain(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace: trace && stripVTControlCharacters(trace) }, plain(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, plain(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, plain(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, plain(message));
  }
}

function plain(message: unknown): string {
  return stripVTControlCharacters(String(message));
}
