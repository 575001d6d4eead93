import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AppConfig } from '../../infra/config/app-config.js';
import { RollupMaintainer } from './rollup-maintainer.js';

/**
 * Every INSIGHTS_FOLD_SECONDS, folds what is pending into the rollups (fewer, larger folds cost
 * order placement less than one per second). On every instance: one at a time holds the lock and
 * the others skip; a run still going when the next is due is not doubled.
 */
@Injectable()
export class RollupScheduler {
  private readonly logger = new Logger(RollupScheduler.name);
  private running = false;
  private lastFoldAt = 0;

  constructor(
    private readonly maintainer: RollupMaintainer,
    private readonly config: AppConfig,
  ) {}

  @Interval('insights-rollups', 1000)
  async foldWhenDue(): Promise<void> {
    if (this.running || Date.now() - this.lastFoldAt < this.config.INSIGHTS_FOLD_SECONDS * 1000 - 100) return;
    this.running = true;
    this.lastFoldAt = Date.now();
    try {
      while ((await this.maintainer.foldDue()) > 0);
    } catch (error) {
      this.logger.error(`folding pending changes into the Insights rollups failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
