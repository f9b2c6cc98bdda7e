import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The page, found from the sources (`sandbox/`) or from the build (`dist/sandbox/`). */
const PAGE =
  [new URL('../web/index.html', import.meta.url), new URL('../../web/index.html', import.meta.url)].find(
    (url) => existsSync(url),
  ) ?? new URL('../web/index.html', import.meta.url);

/** Serves the demo host page at `/`. Read per request, so editing the page needs no restart. */
export function serveDemoPage(req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/' && path !== '/index.html') return false;
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(readFileSync(PAGE));
  return true;
}
