import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reading the project's own source as text, for the tests that check its structure (the layering of
 * lib/, the new-turn path, the codes an answer carries, what the bench imports).
 */

/** Every TypeScript file under `root` (a folder path ending in `/`), with its path from there. */
export function sourceFiles(root: string, dir = root): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    return entry.name.endsWith('.ts')
      ? [{ path: path.slice(root.length), text: readFileSync(path, 'utf8') }]
      : [];
  });
}

/**
 * What a file imports: the specifier of every `import` and `export … from` statement (read whole, so
 * a multi-line import counts), type-only ones included unless `types` is false, and with `dynamic`
 * every `import()` as well.
 */
export function importsOf(text: string, options: { dynamic?: boolean; types?: boolean } = {}): string[] {
  const statements = [...text.matchAll(/^(?:import|export)\s+(type\s)?[^;]*?from\s+'([^']+)'/gms)]
    .filter((match) => options.types !== false || match[1] === undefined)
    .map((match) => match[2] as string);
  const dynamic = options.dynamic ? [...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)] : [];
  return [...statements, ...dynamic.map((match) => match[1] as string)];
}

/** The elementary cycles of a graph, each written from its alphabetically first node, `a → b → a`. */
export function cycles(graph: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const walk = (start: string, node: string, path: string[]) => {
    for (const next of graph.get(node) ?? []) {
      if (next === start) found.add([...path, start].join(' → '));
      else if (!path.includes(next) && next > start) walk(start, next, [...path, next]);
    }
  };
  for (const start of [...graph.keys()].sort()) walk(start, start, [start]);
  return [...found].sort();
}
