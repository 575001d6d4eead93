import { Module } from '@nestjs/common';
import { FoldLagMetric } from './fold-lag.metric.js';
import { RollupMaintainer } from './rollup-maintainer.js';
import { RollupScheduler } from './rollup.scheduler.js';

/** The Insights rollups: folded in every few seconds (INSIGHTS_FOLD_SECONDS), rebuilt on demand (demo seeds, time-zone changes). */
@Module({
  providers: [RollupMaintainer, RollupScheduler, FoldLagMetric],
  exports: [RollupMaintainer],
})
export class RollupsModule {}
