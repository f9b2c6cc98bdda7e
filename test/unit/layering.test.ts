import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importsOf, sourceFiles } from '../support/source-graph.ts';

const LIB = fileURLToPath(new URL('../../lib/', import.meta.url));

/**
 * Folder cycles allowed. None: a cycle fails the test. The last ones closed through contract →
 * events, the wire documents describing the event log with lib/events/log.ts's schemas (which are
 * built from contract's and agents' schemas); the documents are now lib/documents, a folder above
 * both that no other folder imports.
 */
const KNOWN_CYCLES: readonly string[] = [];

/**
 * The ground floor: the folders whose types and declarations every layer shares (the `Runtime` type
 * and the settings in lib/config, the contract's schemas, the AWS client, the error codes, ids).
 * They import nothing of lib above them.
 */
const GROUND = ['aws', 'config', 'contract', 'errors', 'ids'];

/**
 * lib/'s folders and the folders each imports (`from '../X/`, at any depth of `../`), `import type`
 * included: a type-only import orders nothing at load, but it ties the two folders together all the
 * same (one cannot be read, moved or published without the other). A dynamic `import()` is left out:
 * it loads after every module has been evaluated, and is how a layer calls up lazily.
 */
function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { path, text } of sourceFiles(LIB)) {
    const parts = path.split(sep);
    if (parts.length < 2) continue;
    const from = parts[0]!;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const spec of importsOf(text).filter((s) => s.startsWith('.'))) {
      const target = relative(LIB, join(LIB, path, '..', spec)).split(sep);
      if (target.length < 2 || target[0] === '..' || target[0] === from) continue;
      edges.add(target[0]!);
    }
  }
  return graph;
}

describe('layering of lib/', () => {
  it('has no import cycle between its folders', () => {
    const graph = folderGraph();
    expect(graph.size).toBeGreaterThan(5);
    expect(cycles(graph)).toEqual([...KNOWN_CYCLES].sort());
  });

  it('counts type-only imports: the store reads the Runtime type from lib/config', () => {
    expect(folderGraph().get('store')?.has('config')).toBe(true);
  });

  it('has a ground floor that imports nothing above it', () => {
    const graph = folderGraph();
    const upward = GROUND.flatMap((floor) =>
      [...(graph.get(floor) ?? [])].filter((to) => !GROUND.includes(to)).map((to) => `${floor} → ${to}`),
    );
    expect(GROUND.every((floor) => graph.has(floor))).toBe(true);
    expect(upward).toEqual([]);
  });

  it('builds runtimes above the ground: lib/boot, which no folder under it imports', () => {
    const graph = folderGraph();
    expect(graph.get('boot')).toEqual(expect.any(Set));
    const importers = [...graph].filter(([, edges]) => edges.has('boot')).map(([from]) => from);
    expect(importers.sort()).toEqual(['handlers', 'operate']);
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
