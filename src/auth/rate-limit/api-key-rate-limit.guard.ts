import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail, type ThrottlerModuleOptions } from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors/api-error.js';
import { countRateLimitRefusal } from '../../infra/telemetry/metrics.js';
import type { RateLimitStore } from './fixed-window.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/**
 * Each API key has its own per-minute limit, counted over every request that carries it, whatever
 * the route. Runs after the access guard, which resolved the key.
 */
@Injectable()
export class ApiKeyRateLimitGuard extends ThrottlerGuard {
  static options(storage: RateLimitStore): ThrottlerModuleOptions {
    return {
      storage,
      throttlers: [
        {
          name: 'default',
          ttl: RATE_LIMIT_WINDOW_MS,
          limit: (context: ExecutionContext) => context.switchToHttp().getRequest<FastifyRequest>().apiKey?.rateLimitPerMinute ?? 0,
        },
      ],
    };
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return !context.switchToHttp().getRequest<FastifyRequest>().apiKey;
  }

  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    return (request as unknown as FastifyRequest).apiKey!.id;
  }

  protected override generateKey(_context: ExecutionContext, tracker: string): string {
    return `api-key:${tracker}`;
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    countRateLimitRefusal('api_key');
    throw new ApiError('RATE_LIMITED', { details: { limit: detail.limit, retryAfterSeconds: detail.timeToBlockExpire } });
  }
}
