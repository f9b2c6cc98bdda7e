import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { FIXTURE_AGENTS } from './template-helpers.ts';

/** The bytes each package puts into a function's bundle, bundled as the stack does (tree-shaken, minified). */
async function packagesIn(fn: string): Promise<Map<string, number>> {
  const entry = fileURLToPath(new URL(`../../functions/${fn}.ts`, import.meta.url));
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    outfile: `${fn}.mjs`,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    minify: true,
    treeShaking: true,
    mainFields: ['module', 'main'],
    alias: { '#agents': FIXTURE_AGENTS },
    metafile: true,
    logLevel: 'error',
  });
  const bytes = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (name && bytesInOutput > 0) bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return bytes;
}

describe('function bundles', () => {
  it('keeps the document readers (unpdf, mammoth) out of the HTTP, WebSocket and sweep functions', async () => {
    for (const fn of ['http', 'ws', 'sweep']) {
      const packages = await packagesIn(fn);
      expect(
        [...packages.keys()].filter((p) => /^(unpdf|mammoth|jszip)$/.test(p)),
        fn,
      ).toEqual([]);
    }
  }, 150_000);

  it('gives the worker the document readers that io.files.text() imports when it reads a PDF or DOCX', async () => {
    const packages = await packagesIn('worker');
    expect(packages.get('unpdf')).toBeGreaterThan(0);
    expect(packages.get('mammoth')).toBeGreaterThan(0);
  }, 150_000);
});
