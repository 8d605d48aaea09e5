import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts', 'test/global-temp-dirs.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most end-to-end tests wait on child processes: two workers keep both cores busy.
    maxWorkers: 2,
    allowOnly: false,
  },
});
