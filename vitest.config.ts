import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (measured: `npx vitest run --reporter=json`), longest first. They start
 * first, so that no worker is left with one of them at the end while the others are done. vitest
 * orders by the durations it cached, but a fresh clone has none, and orders by file size instead.
 */
const LONGEST = [
  'test/package/pack.test.ts',
  'test/browser/page.test.ts',
  'test/property/hostile.property.test.ts',
  'test/e2e/faults.test.ts',
  // With CI set, it runs the stack's functions on Node 24 too.
  'test/infra/node-version.test.ts',
  'test/infra/guard.test.ts',
  'test/unit/docs-examples.test.ts',
  'test/e2e/reattach.test.ts',
  'test/browser/use-chat.test.ts',
  'test/browser/model-demo.test.ts',
  'test/bench/smoke.test.ts',
  'test/sandbox/dev-command.test.ts',
  'test/property/host-context.property.test.ts',
];

// A file renamed or removed would silently lose its place: the list names only files that exist.
for (const file of LONGEST) {
  if (!existsSync(file)) throw new Error(`vitest.config.ts: LONGEST names ${file}, which does not exist.`);
}

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.indexOf(relative(file.project.config.root, file.moduleId));
      return index === -1 ? LONGEST.length : index;
    };
    // A stable sort: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Three workers on two cores: a third of the suite's time is spent waiting (a browser's paced
    // stream, npm's install, a queue's poll), which a third worker fills. Measured on two idle
    // cores: 365 s with two workers, 290 s with three.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    // The test files of a worker share one process and the modules they import (lib, the sandbox,
    // the AWS SDK, aws-cdk-lib), instead of a fresh process importing them again for every file: the
    // imports cost more than many files' tests. A file keeps nothing of its own in shared modules:
    // it starts its own sandbox and closes it, and vitest restores spies between files.
    isolate: false,
  },
});
