import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 2,
    // The test files of a worker share one process and the modules they import (lib, the sandbox,
    // the AWS SDK, aws-cdk-lib), instead of a fresh process importing them again for every file: the
    // imports cost more than many files' tests. A file keeps nothing of its own in shared modules:
    // it starts its own sandbox and closes it, and vitest restores spies between files.
    isolate: false,
  },
});
