import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importsOf, sourceFiles } from '../support/source-graph.ts';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));

describe('the bench', () => {
  it('imports nothing of test/: the agents and helpers both use are in bench/support, which the tests import', () => {
    const files = sourceFiles(BENCH);
    expect(files.map((f) => f.path)).toContain('turn.ts');
    const reaching = files
      .filter(({ text }) => importsOf(text, { dynamic: true }).some((spec) => /^(\.\.\/)+test\//.test(spec)))
      .map((f) => f.path);
    expect(reaching).toEqual([]);
  });
});
