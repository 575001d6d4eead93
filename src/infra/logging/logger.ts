import type { LoggerService } from '@nestjs/common';
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

/** Lets Nest's own messages (module init, route mapping) go through the same JSON logger. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
