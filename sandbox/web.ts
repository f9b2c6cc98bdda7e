import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** True when this module runs from the sources (`npm start` in the repository), false from the build. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** A file of the package, found from the sources (`sandbox/`) or from the build (`dist/sandbox/`). */
export const packageFile = (path: string) =>
  [new URL(`../${path}`, import.meta.url), new URL(`../../${path}`, import.meta.url)].find((url) =>
    existsSync(url),
  );

const HTML = 'text/html; charset=utf-8';
const SCRIPT = 'text/javascript; charset=utf-8';

/**
 * The page's HTML, or its script: from the sources, the script built on request (web/main.tsx, with
 * React, the hook and the client; `sandbox/web-bundle.ts`); from the package, as `npm run build`
 * left them in dist/web. Nothing of React is imported here: the server never loads it.
 */
async function pageFile(name: 'index.html' | 'app.js'): Promise<string | undefined> {
  if (FROM_SOURCES && name === 'app.js') return (await import('./web-bundle.ts')).webScript();
  const file = packageFile(FROM_SOURCES ? `web/${name}` : `dist/web/${name}`);
  return file && readFileSync(file, 'utf8');
}

const PAGES: Record<string, { name: 'index.html' | 'app.js'; type: string }> = {
  '/': { name: 'index.html', type: HTML },
  '/index.html': { name: 'index.html', type: HTML },
  '/app.js': { name: 'app.js', type: SCRIPT },
};

/**
 * Serves the demo host page at `/` (its views: `/` on `switchboard/react`, `/?view=use-chat` on the
 * AI SDK's `useChat`) and its script at `/app.js`. Answers false for any other path.
 */
export function serveDemoPage(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const page = PAGES[path];
  if (!page) return false;
  pageFile(page.name).then(
    (body) => {
      if (body === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Not found: the demo page is not built (npm run build).');
        return;
      }
      res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    (error: Error) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The demo page did not build: ${error.message}`);
    },
  );
  return true;
}
