import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';

/** True when this module runs from the sources (`npm start` in the repository), false from the build. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** A file of the package, found from the sources (`sandbox/`) or from the build (`dist/sandbox/`). */
export const packageFile = (path: string) =>
  [new URL(`../${path}`, import.meta.url), new URL(`../../${path}`, import.meta.url)].find((url) =>
    existsSync(url),
  );

/** The page and its script: plain files, read per request, so editing them needs no restart. */
const PAGE_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'web/index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'web/index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'web/app.js', type: 'text/javascript; charset=utf-8' },
};

/**
 * A module of the client SDK, as the browser imports it (`/client/index.js`): from the build, or
 * from the TypeScript sources with their types stripped (esbuild, a development dependency, is
 * there whenever the sources are).
 */
function clientModule(name: string): string | undefined {
  if (!FROM_SOURCES) {
    const built = packageFile(`dist/client/${name}.js`);
    return built && readFileSync(built, 'utf8');
  }
  const source = packageFile(`client/${name}.ts`);
  if (!source) return undefined;
  const { transformSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const { code } = transformSync(readFileSync(source, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'es2020',
    sourcefile: `client/${name}.ts`,
  });
  return code;
}

/**
 * Serves the demo host page at `/`, its script at `/app.js`, and the client SDK it is built on
 * under `/client/`. Answers false for any other path.
 */
export function serveDemoPage(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const page = PAGE_FILES[path];
  const client = /^\/client\/([a-z-]+)\.(?:js|ts)$/.exec(path)?.[1];
  if (!page && !client) return false;
  const body = page ? readFileSync(packageFile(page.file) ?? page.file) : clientModule(client ?? '');
  if (body === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found');
    return true;
  }
  res.writeHead(200, {
    'content-type': page?.type ?? 'text/javascript; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
