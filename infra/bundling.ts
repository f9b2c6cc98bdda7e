import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Loader, Metafile, Plugin } from 'esbuild';

/**
 * How every function is bundled: one set of esbuild options, used by the stack (through
 * `infra/bundle-function.ts`, which the construct runs at synth) and by `bench/bundles.ts` and
 * `test/infra/bundles.test.ts`, so the sizes measured are those of the bundles deployed.
 */

/**
 * The package root, found from this file (`infra/` in the sources, `dist/infra/` in the build) so the
 * construct also works when installed in node_modules: the functions are bundled from the sources
 * under it (`functions/`, `lib/`), which the package ships beside its build.
 */
export const PACKAGE_ROOT = [new URL('..', import.meta.url), new URL('../..', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((dir) => existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'functions'))) as string;

/** Whether a file belongs to a dependency, not to this package (installed or not) or the team's code. */
function isDependency(path: string): boolean {
  const own = path.startsWith(PACKAGE_ROOT) ? path.slice(PACKAGE_ROOT.length - 1) : path;
  return own.includes(`${'/'}node_modules${'/'}`);
}

/** The condition under which the package's `exports` name its TypeScript sources instead of `dist/`. */
export const SOURCE_CONDITION = 'switchboard-source';

/**
 * The Lambda entry points under `functions/`; `authorizer` only with built-in `auth`, `agui` only with
 * built-in `auth` or `allowAnonymous`.
 */
export type SwitchboardEntry = 'http' | 'ws' | 'worker' | 'sweep' | 'authorizer' | 'agui';

/** Every entry point, in the order the bench reports them. */
export const SWITCHBOARD_ENTRIES: readonly SwitchboardEntry[] = [
  'http',
  'ws',
  'worker',
  'sweep',
  'authorizer',
  'agui',
];

/** The file Lambda loads (`index.handler`); the lazy chunks sit beside it. */
export const ENTRY_FILE = 'index.mjs';

/**
 * The document readers `io.files.text()` imports when it reads a PDF or DOCX (about 2 MB together):
 * only the worker reads documents, and it loads them as separate chunks on first use. Every other
 * function leaves them out (with code splitting, esbuild would otherwise emit a chunk for each
 * `import()` it sees, even in code it drops).
 */
export const WORKER_ONLY_PACKAGES = ['unpdf', 'mammoth'] as const;

/**
 * ESM bundles have no `require`; CommonJS dependencies that call it (some of the AWS SDK's) need one.
 */
const REQUIRE_BANNER =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** The goal for a function's entry chunk (with the chunks it imports statically), minified. */
export const ENTRY_BUDGET_BYTES = 500 * 1024;

/**
 * What each function's entry chunk may not exceed, minified, as the tests check it: the 500 KB goal
 * for every function. What is not needed at every cold start is imported with `import()` where it is
 * used, so that it is a lazy chunk (the S3 client and its commands, ajv, the document readers): see
 * docs/performance.md ("Functions: size, import time and memory").
 */
export const ENTRY_CEILING_BYTES: Readonly<Record<SwitchboardEntry, number>> = {
  http: ENTRY_BUDGET_BYTES,
  ws: ENTRY_BUDGET_BYTES,
  worker: ENTRY_BUDGET_BYTES,
  sweep: ENTRY_BUDGET_BYTES,
  authorizer: ENTRY_BUDGET_BYTES,
  agui: ENTRY_BUDGET_BYTES,
};

/**
 * `import { z } from 'zod'` names zod's namespace object, which esbuild cannot tree-shake: every
 * check, the JSON Schema converters and all 40-odd locales come along (about 440 KB minified).
 * `import * as z from 'zod'` is the same namespace, read property by property, and shakes down to
 * what is used (about 80 KB). This plugin reads the first form as the second in the project's own
 * files and in the team's agents module, so neither has to remember it for the bundles to stay small.
 */
export const zodNamespaceImports: Plugin = {
  name: 'zod-namespace-imports',
  setup(build) {
    // Files only: an optional peer that is not installed (its own namespace) is not a file to read.
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/, namespace: 'file' }, async (args) => {
      if (isDependency(args.path)) return undefined;
      const source = await readFile(args.path, 'utf8');
      const pattern = /^import \{ z \} from (['"])zod\1;?$/gm;
      if (!pattern.test(source)) return undefined;
      return {
        contents: source.replace(pattern, "import * as z from 'zod';"),
        loader: loaderOf(args.path),
        resolveDir: join(args.path, '..'),
      };
    });
  },
};

/** Node's built-in modules, with and without `node:`. */
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/**
 * Loads Node's built-in modules with `require` (the banner's), not with `import`. Importing a
 * built-in as an ES module makes Node build its namespace, reading every export, and some exports are
 * getters that load more: `node:http` reads `WebSocket`, which loads Node's fetch implementation, and
 * `node:crypto` reads `webcrypto`. Measured with Node 22 (`import` of `node:http`, `node:https` and
 * `node:crypto` against `require` of the same, 15 process starts each): 62 ms against 43 ms, with 28 ms
 * for a process that imports nothing. `require` returns the module object, and esbuild reads each
 * name from it where it is used. `module` itself (the banner's `createRequire`) is left as it is.
 */
export const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[\w/]+$/ }, (args) => {
      if (!BUILTINS.has(args.path) || args.path.replace(/^node:/, '') === 'module') return undefined;
      if (args.namespace === 'node-builtin') return { path: args.path, external: true };
      return { path: args.path, namespace: 'node-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Optional peers the runtime imports lazily (`ai`: the SDK adapter takes its steering factory from
 * the team's copy; `@modelcontextprotocol/sdk`: the MCP client of a model agent's `mcpServers`). A
 * team that registers an AI SDK agent, or gives a model agent MCP servers, has the package installed,
 * and it is bundled as any import (only the modules imported: the MCP client, not the SDK's server
 * stack); a team without it gets an empty module in its place, so the build does not fail on a
 * package only those agents need (and without them, nothing reads it).
 */
export const OPTIONAL_PEERS = ['ai', '@modelcontextprotocol/sdk'] as const;

export const optionalPeers: Plugin = {
  name: 'optional-peers',
  setup(build) {
    const names = OPTIONAL_PEERS.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    // A peer or one of its subpaths (`@modelcontextprotocol/sdk/client/index.js`).
    const filter = new RegExp(`^(${names.join('|')})(/.*)?$`);
    build.onResolve({ filter }, async (args) => {
      if (args.pluginData?.optionalPeer) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { optionalPeer: true },
      });
      return found.errors.length === 0 ? found : { path: args.path, namespace: 'optional-peer' };
    });
    build.onLoad({ filter: /.*/, namespace: 'optional-peer' }, () => ({
      contents: 'export {};',
      loader: 'js',
    }));
  },
};

function loaderOf(path: string): Loader {
  const ext = extname(path);
  if (ext.endsWith('tsx')) return 'tsx';
  if (ext.endsWith('ts')) return 'ts';
  if (ext.endsWith('jsx')) return 'jsx';
  return 'js';
}

/**
 * The esbuild options of one function: ESM for Node 22, minified and tree-shaken, split so that what
 * is imported with `import()` (the S3 client and its commands, ajv, the document readers, the AWS
 * SDK's rarely used credential providers) is a chunk loaded on first use rather than parsed at every cold start, `#agents` replaced by the
 * team's agents module, and source maps written beside the code but not loaded (see docs).
 */
export function functionBuildOptions(entry: SwitchboardEntry, agents: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: join(PACKAGE_ROOT, 'functions', `${entry}.ts`) },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    minify: true,
    treeShaking: true,
    // Maps for decoding a logged stack trace, never read by the running function: no
    // `sourceMappingURL` comment, no sources; the construct keeps them out of the asset.
    sourcemap: 'external',
    sourcesContent: false,
    mainFields: ['module', 'main'],
    // The team's agents module imports 'switchboard': its sources, the same modules the functions
    // import (one copy of each class in the bundle), not the package's build. `module` is esbuild's
    // default condition, which naming any condition would drop.
    conditions: [SOURCE_CONDITION, 'module'],
    banner: { js: REQUIRE_BANNER },
    alias: { '#agents': agents },
    external: entry === 'worker' ? [] : [...WORKER_ONLY_PACKAGES],
    plugins: [zodNamespaceImports, builtinsByRequire, optionalPeers],
    metafile: true,
    logLevel: 'error',
  };
}

/** The output files of one bundle: those loaded at cold start, and those loaded on first use. */
export interface BundleFiles {
  /** The entry chunk and every chunk it imports statically, transitively: read at every cold start. */
  readonly initial: readonly string[];
  /** Chunks reached only through `import()`. */
  readonly lazy: readonly string[];
}

/** Splits a bundle's outputs (paths relative to esbuild's working directory) into initial and lazy. */
export function bundleFiles(metafile: Metafile): BundleFiles {
  const outputs = metafile.outputs;
  const code = Object.keys(outputs).filter((path) => !path.endsWith('.map'));
  const entry = code.find((path) => basename(path) === ENTRY_FILE);
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path)) return;
    initial.add(path);
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  if (entry) visit(entry);
  return { initial: [...initial], lazy: code.filter((path) => !initial.has(path)) };
}

/** What {@link bundleFunction} built. */
export interface BuiltBundle {
  readonly metafile: Metafile;
  readonly files: BundleFiles;
}

/** Builds one function into `outdir` with {@link functionBuildOptions}. Needs esbuild installed. */
export async function bundleFunction(
  entry: SwitchboardEntry,
  agents: string,
  outdir: string,
  overrides: Partial<BuildOptions> = {},
): Promise<BuiltBundle> {
  const { build } = await import('esbuild');
  const result = await build({ ...functionBuildOptions(entry, agents, outdir), ...overrides });
  return { metafile: result.metafile!, files: bundleFiles(result.metafile!) };
}
