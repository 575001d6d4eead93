import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  Validate,
  validateSync,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { resolve } from 'node:path';
import { parseEgressSetting } from '../egress/egress-policy.js';
import { parseFileStorageUrl } from '../storage/file-storage-url.js';

const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const toBool = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : value === true || value === 'true' || value === '1';

@ValidatorConstraint({ name: 'egressSetting' })
class EgressSettingConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && 'entries' in parseEgressSetting(value);
  }

  defaultMessage(args: ValidationArguments): string {
    const parsed = typeof args.value === 'string' ? parseEgressSetting(args.value) : { errors: ['must be a string'] };
    return 'errors' in parsed ? parsed.errors.join('; ') : '';
  }
}

@ValidatorConstraint({ name: 'fileStorageUrl' })
class FileStorageUrlConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && 'location' in parseFileStorageUrl(value);
  }

  defaultMessage(args: ValidationArguments): string {
    const parsed = typeof args.value === 'string' ? parseFileStorageUrl(args.value) : { error: 'must be a string' };
    return 'error' in parsed ? parsed.error : '';
  }
}

/**
 * Every setting the service reads from its environment. Validated once at start-up; a bad value
 * stops the process with a message naming the variable.
 */
export class AppConfig {
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// connection URL' })
  DATABASE_URL?: string = undefined;

  @IsString()
  DATA_DIR = '.data';

  /**
   * Where exports, delivered reports and the data hub's drop are kept: unset, the local disk under
   * DATA_DIR/files; `s3://bucket/optional/prefix?region=…&endpoint=http://…&forcePathStyle=true`, an
   * S3 bucket (credentials from the AWS SDK's chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY…).
   */
  @IsOptional()
  @Validate(FileStorageUrlConstraint)
  FILE_STORAGE_URL?: string = undefined;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  EMBEDDED_PG_PORT = 54329;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(500)
  DATABASE_POOL_SIZE = 20;

  /**
   * A direct connection to the primary, for what needs a session of its own (LISTEN/NOTIFY, the job
   * queue, session-long locks), when DATABASE_URL names a pooler in transaction mode (PgBouncer).
   */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// connection URL' })
  DATABASE_DIRECT_URL?: string = undefined;

  /** A streaming replica that Insights reports, the builder and exports read from while it keeps up. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'must be a postgres:// connection URL' })
  DATABASE_REPLICA_URL?: string = undefined;

  /** A replica further behind its primary than this is skipped: its reads go to the primary until it catches up. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  REPLICA_MAX_LAG_SECONDS = 60;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string = undefined;

  /** Mail server for shopper emails (one-time codes, order confirmations). Unset: messages go to the notification_outbox table. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string = undefined;

  /** Sender of shopper emails: an address, optionally with a display name (`Shop <no-reply@shop.example>`). */
  @Matches(/^(?:[^<>\r\n]{1,100} <[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)$/, {
    message: 'must be an email address, optionally with a display name: Shop <no-reply@shop.example>',
  })
  MAIL_FROM = 'Storefront <no-reply@storefront.invalid>';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** Master key (32 bytes, base64) that encrypts token signing keys at rest. Generated under DATA_DIR when unset. */
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, { message: 'must be 32 bytes encoded as base64 (44 characters)' })
  SECRET_KEY?: string = undefined;

  /** Window after a refresh token is consumed in which a replay is refused without revoking the session. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(300)
  REFRESH_REUSE_GRACE_SECONDS = 5;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(365)
  SIGNING_KEY_ROTATION_DAYS = 30;

  /** How often each instance folds recorded changes into the Insights rollups (longer batches more per fold). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(60)
  INSIGHTS_FOLD_SECONDS = 5;

  /**
   * How long a builder question answered from the records (no rollup holds its dimensions) may read
   * before it is refused with 422 query_too_heavy; exports of it have no limit.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(600)
  INSIGHTS_RECORDS_TIMEOUT_SECONDS = 20;

  /**
   * The most orders (placed or cancelled in its range) a builder question answered from the records may
   * read; past it the question is refused with 422 query_too_heavy before anything is read.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000_000)
  INSIGHTS_RECORDS_MAX_ORDERS = 250_000;

  /** The wait before background work that failed (an export, a report delivery) is tried again; it doubles each time. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  JOB_RETRY_DELAY_SECONDS = 30;

  @Transform(toInt)
  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  BODY_LIMIT_BYTES = 1024 * 1024;

  /** Believe X-Forwarded-For / -Proto (only behind a proxy that sets them). */
  @Transform(toBool)
  @IsBoolean()
  TRUST_PROXY = false;

  /**
   * How long an idle keep-alive connection stays open. Longer than a load balancer's own idle timeout
   * (60 s on most), so that the balancer closes first and never sends on a connection just closed here.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  KEEP_ALIVE_TIMEOUT_SECONDS = 72;

  /** Serves the metrics for Prometheus at http://HOST:METRICS_PORT/metrics; unset, none are served. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number = undefined;

  /** How long a rendered catalogue page may be served from memory; changes evict it at once. 0 turns caching off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  CATALOGUE_CACHE_SECONDS = 60;

  /** Create a demo store with a seeded catalogue when the embedded database starts empty. */
  @Transform(toBool)
  @IsBoolean()
  DEMO_STORE_ON_FIRST_START = true;

  /** Per-minute limit of keys issued without an explicit one. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  DEFAULT_KEY_RATE_LIMIT = 600;

  /**
   * Where data hub connections may go, checked after DNS resolution: `public` (any public address), addresses,
   * CIDR ranges, host names and `*.domain`, comma-separated. Private, loopback and link-local addresses are
   * refused unless listed (see infra/egress/egress-policy.ts).
   */
  @Validate(EgressSettingConstraint)
  DATAHUB_ALLOWED_HOSTS = 'public';

  /** Card payments go through this provider; `test` approves and declines by documented test tokens. */
  @IsIn(['test'])
  PAYMENT_PROVIDER = 'test';

  /** The built dashboard web app (`vite build` of dashboard/, run by `npm install` and `npm run build`), served at /admin/. */
  @IsString()
  DASHBOARD_DIR = 'dist/dashboard';

  get dataDir(): string {
    return resolve(this.DATA_DIR);
  }

  get dashboardDir(): string {
    return resolve(this.DASHBOARD_DIR);
  }
}

export class ConfigError extends Error {}

/** A refused value as it may be printed: secrets hidden, passwords cut out of URLs. */
function printable(name: string, value: string | undefined): string {
  if (name === 'SECRET_KEY') return '(hidden)';
  return JSON.stringify(value?.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@'));
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig());
  // An empty variable counts as unset, as in most process managers.
  const present = Object.fromEntries(known.filter((name) => env[name] !== undefined && env[name] !== '').map((name) => [name, env[name]]));
  const config = plainToInstance(AppConfig, present);
  const errors = validateSync(config, { whitelist: true });
  if (errors.length > 0) {
    const lines = errors.map(
      (error) =>
        `  ${error.property}=${printable(error.property, env[error.property])}: ${Object.values(error.constraints ?? {}).join('; ')}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return config;
}
