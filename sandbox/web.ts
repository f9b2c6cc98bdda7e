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
async function pageFile(name: PageFile): Promise<string | undefined> {
  if (FROM_SOURCES && name === 'app.js') return (await import('./web-bundle.ts')).webScript();
  // The components' stylesheet is a file of the package as it is (switchboard/react-dom/styles.css).
  const path =
    name === 'styles.css' ? 'react-dom/styles.css' : FROM_SOURCES ? `web/${name}` : `dist/web/${name}`;
  const file = packageFile(path);
  return file && readFileSync(file, 'utf8');
}

type PageFile = 'index.html' | 'app.js' | 'styles.css';

const PAGES: Record<string, { name: PageFile; type: string }> = {
  '/': { name: 'index.html', type: HTML },
  '/index.html': { name: 'index.html', type: HTML },
  '/app.js': { name: 'app.js', type: SCRIPT },
  '/styles.css': { name: 'styles.css', type: 'text/css; charset=utf-8' },
};

/**
 * Serves the demo host page at `/` (its views: `/` on `switchboard/react`, `/?view=use-chat` on the
 * AI SDK's `useChat`), its script at `/app.js` and its stylesheet at `/styles.css`. Answers false
 * for any other path.
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
