import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The folders the page's script is built from: the app, the components, the React hook and the client. */
const SOURCE_DIRS = ['web', 'react-dom', 'react', 'client'];

/** The root of the repository: this module is `sandbox/web-bundle.ts`, run from the sources only. */
const ROOT = new URL('../', import.meta.url);

/**
 * How the demo page's script is built: one ES module for the browser, React in production mode.
 * The same options serve `switchboard dev` from the sources and `npm run build` (dist/web).
 */
export const WEB_BUILD: BuildOptions = {
  entryPoints: [fileURLToPath(new URL('web/main.tsx', ROOT))],
  bundle: true,
  format: 'esm',
  target: 'es2023',
  jsx: 'automatic',
  minify: true,
  legalComments: 'none',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'silent',
};

/** The newest change under the page's sources, so that an edit rebuilds the script and nothing else does. */
function newestChange(dir: URL): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let cached: { stamp: number; script: Promise<string> } | undefined;

/**
 * The page's script, built from the sources with esbuild (a development dependency, there whenever
 * the sources are); built again only when a source changed.
 */
export function webScript(): Promise<string> {
  const stamp = Math.max(...SOURCE_DIRS.map((dir) => newestChange(new URL(`${dir}/`, ROOT))));
  if (cached?.stamp !== stamp) {
    const script = import('esbuild')
      .then(({ build }) => build({ ...WEB_BUILD, write: false }))
      .then((built) => built.outputFiles?.[0]?.text ?? '');
    cached = { stamp, script };
    // A failed build is not kept: the next request tries again.
    script.catch(() => {
      if (cached?.script === script) cached = undefined;
    });
  }
  return cached.script;
}
