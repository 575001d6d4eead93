import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { RollupMaintainer } from './rollup-maintainer.js';

/**
 * Every second, folds what is pending into the rollups. On every instance: one at a time holds the
 * lock and the others skip; a run still going when the next is due is not doubled.
 */
@Injectable()
export class RollupScheduler {
  private readonly logger = new Logger(RollupScheduler.name);
  private running = false;

  constructor(private readonly maintainer: RollupMaintainer) {}

  @Interval('insights-rollups', 1000)
  async foldEverySecond(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while ((await this.maintainer.foldDue()) > 0);
    } catch (error) {
      this.logger.error(`folding pending changes into the Insights rollups failed: ${(error as Error).message}`);
    } finally {
      this.running = false;
    }
  }
}
