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
    // The suites mostly wait on PostgreSQL, Chromium and the test peers: a fork per core, not vitest's one
    // fewer (on this 2-core machine the whole run took 1,008 s with one fork, 512 s with two).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The JSON report lets .ci/run print a plain 'N passed, N failed' line.
    reporters: ['default', 'json'],
    outputFile: { json: '.data/test-results.json' },
  },
});
