import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importsOf } from '../support/source-graph.ts';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));

/** The folders whose files the new-turn path goes through, from the commands down to the queue. */
const FOLDERS = ['commands', 'runs'];

/** The entry points of lib/runs for what a caller sends: none may reach another. */
const ENTRY_POINTS = ['runs/new-message.ts', 'runs/rewrite.ts', 'runs/continuation.ts', 'runs/answer.ts'];

/** Every file a door's module is, for the check that doors go through lib/commands. */
const DOORS = [
  'handlers/http-routes.ts',
  'handlers/ws.ts',
  ...readdirSync(join(LIB, 'agui'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `agui/${name}`),
];

/**
 * The files of FOLDERS (as `runs/x.ts`) and those of FOLDERS each imports: static, type-only (unless
 * `types` is false), re-exported and dynamic imports alike, since each is a way back to a file the
 * path left.
 */
function fileGraph(options: { types?: boolean } = {}): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const folder of FOLDERS) {
    for (const name of readdirSync(join(LIB, folder)).filter((n) => n.endsWith('.ts'))) {
      const file = `${folder}/${name}`;
      const specs = importsOf(readFileSync(join(LIB, file), 'utf8'), { dynamic: true, ...options });
      const edges = new Set<string>();
      for (const spec of specs.filter((s) => s.startsWith('.'))) {
        const target = relative(LIB, join(LIB, folder, spec));
        if (FOLDERS.includes(target.split('/')[0] as string)) edges.add(target);
      }
      graph.set(file, edges);
    }
  }
  return graph;
}

/** The files reachable from `file`, itself excluded. */
function reachable(graph: Map<string, Set<string>>, file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (node: string) => {
    for (const next of graph.get(node) ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      visit(next);
    }
  };
  visit(file);
  return seen;
}

describe('the new-turn path', () => {
  it('never returns to a file it left: no import cycle among the files of lib/commands and lib/runs', () => {
    const graph = fileGraph();
    expect(graph.size).toBeGreaterThan(20);
    expect(graph.get('commands/message.ts')?.has('runs/index.ts')).toBe(true);
    expect(cycles(graph)).toEqual([]);
  });

  it('has entry points for a message, a rewrite, a continuation and an answer that do not call each other', () => {
    const graph = fileGraph();
    for (const entry of ENTRY_POINTS) {
      expect(graph.has(entry), entry).toBe(true);
      const others = ENTRY_POINTS.filter((other) => other !== entry);
      expect(
        [...reachable(graph, entry)].filter((file) => others.includes(file)),
        entry,
      ).toEqual([]);
    }
  });

  it('reaches each file of the new-message path by one way only, from the route down to the queue', () => {
    // What runs: a type-only import calls nothing (types.ts declares what every file shares).
    const graph = fileGraph({ types: false });
    // Who imports each file, among the files a new message goes through.
    const path = new Set(['runs/new-message.ts', ...reachable(graph, 'runs/new-message.ts')]);
    const twice = [...path].filter(
      (file) => [...path].filter((from) => graph.get(from)?.has(file)).length > 1,
    );
    expect(path.has('runs/job.ts')).toBe(true);
    expect(twice).toEqual([]);
  });

  it('records a request in one helper', () => {
    const callers = [...fileGraph().keys()].filter((file) =>
      /\brecordRequest\(/.test(readFileSync(join(LIB, file), 'utf8')),
    );
    expect(callers).toEqual(['runs/record-request.ts']);
  });

  it('is entered by every door through lib/commands, never by a lib/runs entry point', () => {
    for (const door of DOORS) {
      const text = readFileSync(join(LIB, door), 'utf8');
      expect(text.match(/\bsubmit(Message|Rewrite|Continuation|Answer)\b/g) ?? [], door).toEqual([]);
    }
    for (const door of ['handlers/http-routes.ts', 'handlers/ws.ts', 'agui/accept.ts']) {
      const text = readFileSync(join(LIB, door), 'utf8');
      expect(text, door).toMatch(/from '\.\.\/commands\/index\.ts'/);
    }
  });
});
