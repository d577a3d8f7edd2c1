import { defineConfig } from 'vitest/config';

// The whole real-node suite (`npm run test:node`): the smoke set CI runs (test/node/*.test.ts) and
// the longer cases (test/node/long/), one file at a time, each on its own real node. About half an
// hour on 2 cores; run it before a change to the controller's day-2 paths is called done.
export default defineConfig({
  test: {
    pool: 'forks',
    include: ['test/node/**/*.test.ts'],
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 30 * 60_000,
    hookTimeout: 30 * 60_000,
    globalSetup: ['test/setup/build-dist.ts'],
    reporters: ['default'],
  },
});
