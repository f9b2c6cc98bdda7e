/**
 * Builds the demo page into dist/web (its HTML and its script), so that `switchboard dev` from the
 * package serves it without the page's sources or a bundler. Run by `npm run build`.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WEB_BUILD } from './web-bundle.ts';

const out = new URL('../dist/web/', import.meta.url);
mkdirSync(out, { recursive: true });
await build({ ...WEB_BUILD, outfile: fileURLToPath(new URL('app.js', out)) });
copyFileSync(new URL('../web/index.html', import.meta.url), new URL('index.html', out));
