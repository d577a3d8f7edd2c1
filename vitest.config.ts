import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ once, so end-to-end tests run the same bundles users get.
    globalSetup: ['test/setup/build-dist.ts'],
    pool: 'forks',
    // Two cores: the integration suites start real servers; keep them from starving each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
