import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));

/**
 * Folder cycles allowed. None: a cycle fails the test. The last ones closed through contract →
 * events, the wire documents describing the event log with lib/events/log.ts's schemas (which are
 * built from contract's and agents' schemas); the documents are now lib/documents, a folder above
 * both that no other folder imports.
 */
const KNOWN_CYCLES: readonly string[] = [];

/** Every .ts file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * lib/'s folders and the folders each imports statically (`from '../X/`, at any depth of `../`).
 * `import type` is left out: it is erased and orders nothing at load. A dynamic `import()` is left
 * out too: it loads after every module has been evaluated, and is how a layer calls up lazily.
 */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sources(LIB)) {
    const parts = relative(LIB, file).split(sep);
    if (parts.length < 2) continue;
    const from = parts[0]!;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    // Whole statements, so that a multi-line import is read with its `import type` head.
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) {
      if (match[2]) continue;
      const spec = match[3]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(LIB, join(file, '..', spec)).split(sep);
      if (target.length < 2 || target[0] === '..' || target[0] === from) continue;
      edges.add(target[0]!);
    }
  }
  return graph;
}

/** The elementary cycles through each folder, each written from its alphabetically first folder. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const walk = (start: string, node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        found.add([...path, start].join(' → '));
      } else if (!path.includes(next) && next > start) {
        walk(start, next, [...path, next]);
      }
    }
  };
  for (const start of [...graph.keys()].sort()) walk(start, start, [start]);
  return [...found].sort();
}

describe('layering of lib/', () => {
  it('has no import cycle between its folders', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(5);
    expect(cycles(graph)).toEqual([...KNOWN_CYCLES].sort());
  });

  it('sees the files → store edge, and contract no longer imports files', () => {
    const graph = folderGraph();
    expect(graph.get('files')?.has('store')).toBe(true);
    expect(graph.get('contract')?.has('files') ?? false).toBe(false);
  });

  it('has the documents on top: no other folder imports lib/documents', () => {
    const graph = folderGraph();
    expect([...(graph.get('documents') ?? [])]).toEqual(expect.arrayContaining(['contract', 'events']));
    const importers = [...graph].filter(([, edges]) => edges.has('documents')).map(([from]) => from);
    expect(importers).toEqual([]);
  });
});
