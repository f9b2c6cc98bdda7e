import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ENTRY = fileURLToPath(new URL('../../client/index.ts', import.meta.url));
const REACT_ENTRY = fileURLToPath(new URL('../../react/index.ts', import.meta.url));
const AI_SDK_ENTRY = fileURLToPath(new URL('../../ai-sdk/index.ts', import.meta.url));
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** How an app's bundler builds for the browser: ESM, in memory, with its inputs listed. */
const BROWSER_BUILD = {
  bundle: true,
  platform: 'browser',
  format: 'esm',
  target: 'es2020',
  write: false,
  metafile: true,
  logLevel: 'silent',
} as const;

describe('the client bundle', () => {
  it('bundles for the browser without any Node built-in and without the server’s dependencies', async () => {
    const wanted: string[] = [];
    // Records every import of a Node built-in instead of letting esbuild fail on the first one.
    const nodeBuiltins: Plugin = {
      name: 'node-builtins',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) => {
          if (args.path.startsWith('node:') || BUILTINS.has(args.path)) {
            wanted.push(`${args.path} (from ${args.importer})`);
            return { path: args.path, external: true };
          }
          return undefined;
        });
      },
    };
    const result = await build({
      ...BROWSER_BUILD,
      entryPoints: [ENTRY],
      plugins: [nodeBuiltins],
    });
    expect(wanted).toEqual([]);
    expect(result.errors).toEqual([]);
    // Only the client's own files are in it: the shared types are imported as types and erased.
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !input.startsWith('client/'))).toEqual([]);
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).not.toMatch(/\brequire\(|\bprocess\.|\bBuffer\b/);
  });

  it('bundles switchboard/react for the browser from the client and React alone, React left to the app', async () => {
    const result = await build({
      ...BROWSER_BUILD,
      entryPoints: [REACT_ENTRY],
      external: ['react'],
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !/^(client|react)\//.test(input))).toEqual([]);
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect([...new Set(imports)]).toEqual(['react']);
  });

  it('bundles switchboard/ai-sdk for the browser from the client and the transport alone: `ai` is imported as types only', async () => {
    const result = await build({ ...BROWSER_BUILD, entryPoints: [AI_SDK_ENTRY] });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => !/^(client|ai-sdk)\//.test(input))).toEqual([]);
    const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
    expect(imports).toEqual([]);
  });
});
