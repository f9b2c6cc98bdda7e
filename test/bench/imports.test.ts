import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('../../bench/', import.meta.url));

/** Every TypeScript file of bench/, with its path from bench/. */
function sources(dir = BENCH): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts')
      ? [{ path: path.slice(BENCH.length), text: readFileSync(path, 'utf8') }]
      : [];
  });
}

describe('the bench', () => {
  it('imports nothing of test/: the agents and helpers both use are in bench/support, which the tests import', () => {
    const files = sources();
    expect(files.map((f) => f.path)).toContain('turn.ts');
    const reaching = files.filter(({ text }) => /from '(\.\.\/)+test\//.test(text)).map((f) => f.path);
    expect(reaching).toEqual([]);
  });
});
