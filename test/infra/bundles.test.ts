import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BuiltBundle,
  bundleFunction,
  ENTRY_BUDGET_BYTES,
  ENTRY_CEILING_BYTES,
  optionalPeers,
  SWITCHBOARD_ENTRIES,
  type SwitchboardEntry,
} from '../../infra/bundling.ts';

/** The agents module this repository deploys: the bundles measured are the ones it ships. */
const DEMO_AGENTS = fileURLToPath(new URL('../../demo/agents.ts', import.meta.url));

const bundles = new Map<SwitchboardEntry, BuiltBundle>();

/** Builds every function once, as the stack does (nothing written), for every test of this file. */
beforeAll(async () => {
  for (const fn of SWITCHBOARD_ENTRIES) {
    bundles.set(fn, await bundleFunction(fn, DEMO_AGENTS, `/bundles/${fn}`, { write: false }));
  }
}, 150_000);

function built(fn: SwitchboardEntry): BuiltBundle {
  const bundle = bundles.get(fn);
  if (!bundle) throw new Error(`${fn} was not built`);
  return bundle;
}

/** The bytes each package puts into the given outputs of a bundle. */
function packagesIn(fn: SwitchboardEntry, outputs: 'initial' | 'all'): Map<string, number> {
  const { metafile, files } = built(fn);
  const paths = outputs === 'initial' ? files.initial : [...files.initial, ...files.lazy];
  const bytes = new Map<string, number>();
  for (const path of paths) {
    for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[path]?.inputs ?? {})) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      if (name && bytesInOutput > 0) bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return bytes;
}

/** Minified bytes read at a cold start: the entry chunk and what it imports statically. */
function entryBytes(fn: SwitchboardEntry): number {
  const { metafile, files } = built(fn);
  return files.initial.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
}

describe('function bundles', () => {
  it('hold nothing of React: not the hook, not the demo page, not react or react-dom', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      const inputs = Object.values(built(fn).metafile.outputs).flatMap((o) => Object.keys(o.inputs));
      expect(
        inputs.filter((input) =>
          input.includes('node_modules/')
            ? /node_modules\/(react|react-dom|@ai-sdk\/react)\//.test(input)
            : /(^|\/)(react|web)\//.test(input),
        ),
        fn,
      ).toEqual([]);
    }
  });

  it('keeps the document readers (unpdf, mammoth) out of the HTTP, WebSocket, sweep, authoriser and AG-UI functions', () => {
    for (const fn of ['http', 'ws', 'sweep', 'authorizer', 'agui'] as const) {
      expect(
        [...packagesIn(fn, 'all').keys()].filter((p) => /^(unpdf|mammoth|jszip)$/.test(p)),
        fn,
      ).toEqual([]);
    }
  });

  it('gives the worker the document readers that io.files.text() imports, as chunks loaded on first use', () => {
    const all = packagesIn('worker', 'all');
    expect(all.get('unpdf')).toBeGreaterThan(0);
    expect(all.get('mammoth')).toBeGreaterThan(0);
    const initial = packagesIn('worker', 'initial');
    expect([...initial.keys()].filter((p) => /^(unpdf|mammoth|jszip|pako)$/.test(p))).toEqual([]);
  });

  it('tree-shakes zod: no locales and no JSON Schema reader in any function', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      const inputs = Object.values(built(fn).metafile.outputs).flatMap((o) => Object.keys(o.inputs));
      expect(
        inputs.filter((input) => /zod\/v4\/(locales\/(?!en\.)|classic\/from-json-schema)/.test(input)),
        fn,
      ).toEqual([]);
    }
  });

  it('talks to the table with its own client: no AWS SDK client in any entry code', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      const sdk = [...packagesIn(fn, 'initial')].filter(([p]) => /^@(aws-sdk|smithy)\//.test(p));
      expect(
        sdk.map(([p]) => p).filter((p) => /^@aws-sdk\/(core|client-|lib-)/.test(p)),
        fn,
      ).toEqual([]);
      // What is left needs nothing else of the SDK: util-dynamodb converts items for the table's
      // commands, @smithy/core's retry classification says which errors its client sends again.
      expect(
        sdk.reduce((sum, [, bytes]) => sum + bytes, 0),
        fn,
      ).toBeLessThan(20 * 1024);
    }
  });

  it.each([
    ['ai', "import('ai')", 'createSteering'],
    [
      '@modelcontextprotocol/sdk',
      "import('@modelcontextprotocol/sdk/client/streamableHttp.js')",
      'StreamableHTTPClientTransport',
    ],
  ])(
    'bundles the optional peer %s when it is installed, and builds without it when it is not (see optionalPeers)',
    async (_, load, code) => {
      const bundleOf = async (resolveDir: string) => {
        const result = await build({
          stdin: { contents: `export const load = () => ${load};`, resolveDir, loader: 'ts' },
          bundle: true,
          format: 'esm',
          platform: 'node',
          splitting: true,
          outdir: 'out',
          write: false,
          plugins: [optionalPeers],
          logLevel: 'silent',
        });
        return result.outputFiles.map((f) => f.text).join('\n');
      };
      // From the repository, where `ai` is installed: its code is in the bundle.
      expect(await bundleOf(fileURLToPath(new URL('.', import.meta.url)))).toContain(code);
      // From a folder with no such package anywhere above it: an empty module stands in, and the build succeeds.
      const bare = mkdtempSync(`${tmpdir()}/no-peer-`);
      try {
        expect(await bundleOf(bare)).not.toContain(code);
      } finally {
        rmSync(bare, { recursive: true, force: true });
      }
    },
  );

  it('loads Node’s built-in modules with require, never with import (see builtinsByRequire)', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      const { outputs } = built(fn).metafile;
      const imported = Object.values(outputs).flatMap((output) =>
        output.imports.filter(
          (i) =>
            i.external &&
            i.kind === 'import-statement' &&
            builtinModules.includes(i.path.replace(/^node:/, '')),
        ),
      );
      expect(
        imported.map((i) => i.path).filter((path) => path !== 'module'),
        fn,
      ).toEqual([]);
    }
  });

  it('loads the S3 SDK, the presigner and ajv on first use: lazy chunks, never in the entry code', () => {
    for (const fn of ['http', 'ws', 'worker', 'sweep', 'agui'] as const) {
      const initial = packagesIn(fn, 'initial');
      expect(
        [...initial.keys()].filter((p) => /^(ajv|@aws-sdk\/(client-s3|s3-request-presigner))$/.test(p)),
        fn,
      ).toEqual([]);
      const all = packagesIn(fn, 'all');
      expect(all.get('ajv'), fn).toBeGreaterThan(0);
      expect(all.get('@aws-sdk/client-s3'), fn).toBeGreaterThan(0);
    }
  });

  it('loads Powertools metrics on the first flush and the OpenTelemetry SDK and OTLP exporters only when tracing is on: lazy chunks, no X-Ray SDK', () => {
    for (const fn of ['http', 'ws', 'worker', 'sweep', 'agui'] as const) {
      const initial = [...packagesIn(fn, 'initial').keys()];
      // Nothing of OpenTelemetry starts with a function: the API and the SDK load with its first
      // span, the exporters with the first span that ends (lib/telemetry/export.ts).
      expect(
        initial.filter((p) =>
          /^(aws-xray-sdk-core|@aws-lambda-powertools\/(tracer|metrics)|@opentelemetry\/.+|protobufjs)$/.test(
            p,
          ),
        ),
        fn,
      ).toEqual([]);
      const all = packagesIn(fn, 'all');
      expect(all.get('@opentelemetry/sdk-trace'), fn).toBeGreaterThan(0);
      expect(all.get('@opentelemetry/exporter-trace-otlp-http'), fn).toBeGreaterThan(0);
      expect(all.get('@opentelemetry/otlp-transformer'), fn).toBeGreaterThan(0);
      expect(all.has('aws-xray-sdk-core'), fn).toBe(false);
      expect(all.get('@aws-lambda-powertools/metrics'), fn).toBeGreaterThan(0);
    }
  });

  it('loads the EventBridge SDK with the first domain event: a lazy chunk, never in the entry code', () => {
    for (const fn of ['http', 'ws', 'worker', 'sweep', 'agui'] as const) {
      expect(packagesIn(fn, 'initial').has('@aws-sdk/client-eventbridge'), fn).toBe(false);
      expect(packagesIn(fn, 'all').get('@aws-sdk/client-eventbridge'), fn).toBeGreaterThan(0);
    }
  });

  it('loads the openai client and the model loop with a model agent’s first turn: a lazy chunk, never in the entry code', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      expect(packagesIn(fn, 'initial').has('openai'), fn).toBe(false);
    }
    expect(packagesIn('worker', 'all').get('openai')).toBeGreaterThan(0);
  });

  it('loads the MCP client with the first turn of a model agent that has MCP servers: a lazy chunk of the worker only, never entry code', () => {
    for (const fn of SWITCHBOARD_ENTRIES) {
      expect(packagesIn(fn, 'initial').has('@modelcontextprotocol/sdk'), fn).toBe(false);
    }
    expect(packagesIn('worker', 'all').get('@modelcontextprotocol/sdk')).toBeGreaterThan(0);
    // Only its client: none of the HTTP server stack the package depends on.
    for (const server of ['express', 'hono', '@hono/node-server', 'cors'])
      expect(packagesIn('worker', 'all').has(server), server).toBe(false);
  });

  it('keeps every function entry code within its ceiling, the 500 KB goal', () => {
    const sizes = Object.fromEntries(SWITCHBOARD_ENTRIES.map((fn) => [fn, entryBytes(fn)]));
    for (const fn of SWITCHBOARD_ENTRIES) {
      expect(sizes[fn], `${fn}: ${sizes[fn]} bytes`).toBeLessThanOrEqual(ENTRY_CEILING_BYTES[fn]);
      expect(sizes[fn], `${fn}: ${sizes[fn]} bytes`).toBeLessThanOrEqual(ENTRY_BUDGET_BYTES);
    }
  });
});
