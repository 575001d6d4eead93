import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const AT_SCALE = ['test/data-hub/undo-at-scale.test.ts'];

export default defineConfig({
  plugins: [swc.vite({ module: { type: 'es6' } })],
  test: {
    // The suite, then the tests at scale alone: a million-row undo run beside the suite's other fork slows
    // its timing-sensitive tests past their limits (they wait on the same two cores and PostgreSQL).
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: AT_SCALE } },
      { extends: true, test: { name: 'at scale', include: AT_SCALE, sequence: { groupOrder: 1 } } },
    ],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['reflect-metadata'],
    pool: 'forks',
    // The suites mostly wait on PostgreSQL, Chromium and the test peers: a fork per core, not vitest's one fewer.
    // On 2026-11-28 from a fresh clone, on this quiet 2-core machine, the suite took 676 s with two forks and
    // 614-632 s with three: too little gained to crowd the timing-sensitive tests onto two cores.
    maxWorkers: '100%',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain 'N passed, N failed' line.
    reporters: ['default', 'json'],
    outputFile: { json: '.data/test-results.json' },
  },
});
