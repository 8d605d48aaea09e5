import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts', 'test/global-temp-dirs.ts'],
    // An end-to-end test runs the CLI up to a dozen times: on a loaded machine each run may take
    // seconds. A bound that only a hang reaches.
    testTimeout: 90_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most end-to-end tests wait on child processes: two workers keep both cores busy.
    maxWorkers: 2,
    // Test files share each worker's loaded modules: importing rho afresh for every file cost
    // about as much as the unit tests themselves. A test that patches a module restores it.
    isolate: false,
    allowOnly: false,
  },
});
