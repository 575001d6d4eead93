import { EntityManager } from '@mikro-orm/postgresql';
import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { sql } from 'kysely';
import { PublicRoute } from '../auth/access/decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import { ApiProblemResponses } from '../common/errors/openapi.js';
import { ReportReads } from '../infra/database/report-reads.js';

/** A database that does not answer within this time is as good as down for a readiness probe. */
const READY_TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly em: EntityManager,
    private readonly reads: ReportReads,
  ) {}

  @Get('live')
  @PublicRoute()
  @ApiOperation({ summary: 'The process is up' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @PublicRoute()
  @ApiOperation({
    summary: 'The service can serve: its database answers',
    description:
      'With a read replica (DATABASE_REPLICA_URL), `checks.replica` says whether reports read from it (`up`), or from the primary because ' +
      'it lags more than REPLICA_MAX_LAG_SECONDS (`lagging`) or does not answer (`down`). A replica never makes the service unready.',
  })
  @ApiOkResponse({
    schema: {
      example: {
        status: 'ok',
        checks: {
          database: { status: 'up', latencyMs: 1 },
          replica: { status: 'up', lagSeconds: 0.2, checkedAt: '2026-11-28T05:12:05.000Z' },
        },
      },
    },
  })
  @ApiProblemResponses(['SERVICE_UNAVAILABLE'])
  async ready() {
    const started = performance.now();
    try {
      await withTimeout(sql`select 1`.execute(this.em.getKysely()), READY_TIMEOUT_MS);
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', { details: { checks: { database: { status: 'down' } } } });
    }
    const database = { status: 'up', latencyMs: Math.round(performance.now() - started) };
    const replica = this.reads.replicaState();
    return { status: 'ok', checks: replica ? { database, replica } : { database } };
  }
}
