/**
 * What each function's bundle weighs and what it costs at a cold start: minified bytes of the code
 * read at every cold start (the entry chunk and the chunks it imports statically) and of the lazy
 * chunks, the wall time of a Node process that imports the bundle against one that imports nothing
 * (same run, same machine), and the process's memory after the import. The bundles are built with
 * the options the stack deploys (`infra/bundling.ts`). Run: `npx tsx bench/bundles.ts` (RUNS=5 to
 * change the count of imports per function, 10 by default).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  bundleFunction,
  ENTRY_BUDGET_BYTES,
  ENTRY_FILE,
  SWITCHBOARD_ENTRIES,
  type SwitchboardEntry,
} from '../infra/bundling.ts';
import { firstRequest, startLocalAws } from './first-request.ts';

/** One function's figures. */
export interface BundleReport {
  /** The entry point under `functions/`. */
  readonly fn: SwitchboardEntry;
  /** Minified bytes read at every cold start: the entry chunk and the chunks it imports statically. */
  readonly entryBytes: number;
  /** Minified bytes of the chunks loaded only through `import()`, on first use (0 when none). */
  readonly lazyBytes: number;
  /** How many lazy chunks there are. */
  readonly lazyChunks: number;
  /** Whether {@link entryBytes} is within the 500 KB goal ({@link ENTRY_BUDGET_BYTES}). */
  readonly withinGoal: boolean;
  /** The heaviest packages (or project folders) of the entry bytes, heaviest first, at most 8. */
  readonly heaviest: readonly { readonly name: string; readonly bytes: number }[];
  /** Median wall time, spawn to exit, of a Node process that imports the bundle (ms). */
  readonly importMs: number;
  /** The fastest and slowest of those imports (ms): how much the machine's load moved them. */
  readonly importRange: readonly [min: number, max: number];
  /** Median wall time of a Node process that imports nothing, measured in the same rounds (ms). */
  readonly emptyMs: number;
  /** The fastest and slowest of the empty processes (ms). */
  readonly emptyRange: readonly [min: number, max: number];
  /** `importMs / emptyMs`: the goal is under 2. */
  readonly importRatio: number;
  /** Resident memory after the import (MB), median. */
  readonly rssMb: number;
  /** Resident memory of the empty process (MB), median. */
  readonly emptyRssMb: number;
  /**
   * The HTTP function only: median wall time of a process that imports the bundle and serves one
   * request against a local table (bench/first-request.ts), spawn to exit (ms): a cold start's import
   * and first invocation together. Its fastest and slowest beside it.
   */
  readonly firstRequestMs?: number;
  readonly firstRequestRange?: readonly [min: number, max: number];
}

/** Options of {@link measureBundles}. */
export interface MeasureOptions {
  /** The agents module bundled for `#agents`. Default: this repository's demo (what it deploys). */
  readonly agents?: string;
  /** Imports timed per function (the median is kept, with the fastest and slowest). Default 10. */
  readonly runs?: number;
  /** Which functions. Default: all five. */
  readonly functions?: readonly SwitchboardEntry[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What the handlers read from the environment (they read it on first invocation, not at import, but
 * the bundle is imported as Lambda would). Dummy values: importing makes no network call.
 */
const LAMBDA_ENV: Record<string, string> = {
  SWITCHBOARD_TABLE: 'bench-table',
  SWITCHBOARD_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench.fifo',
  SWITCHBOARD_BUCKET: 'bench-bucket',
  SWITCHBOARD_WS_ENDPOINT: 'https://bench.execute-api.us-east-1.amazonaws.com/live',
  SWITCHBOARD_AUTH_ISSUER: 'https://issuer.example.com',
  SWITCHBOARD_AUTH_AUDIENCE: '["bench"]',
  POWERTOOLS_SERVICE_NAME: 'switchboard',
  LOG_LEVEL: 'ERROR',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
};

/**
 * The `awslambda` global that Lambda's Node runtime defines before it loads a handler: the AG-UI
 * bundle calls `awslambda.streamifyResponse` when it is imported. Importing needs only that the two
 * names exist; nothing is streamed.
 */
const LAMBDA_GLOBALS =
  'globalThis.awslambda ??= { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };';

/** A process that imports `url` (or nothing) and prints its memory; its wall time and memory. */
function timeProcess(url: string | undefined): { ms: number; rss: number } {
  const script = `${url ? `${LAMBDA_GLOBALS}await import(${JSON.stringify(url)});` : ''}process.stdout.write(String(process.memoryUsage().rss));`;
  const started = performance.now();
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...LAMBDA_ENV },
    encoding: 'utf8',
  });
  return { ms: performance.now() - started, rss: Number(out) };
}

function range(values: readonly number[]): readonly [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The package an input of the metafile belongs to, or its project folder (`lib/runs`). */
function packageOf(input: string, workingDir: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
  if (pkg) return pkg;
  return relative(ROOT, resolve(workingDir, input)).split(sep).slice(0, 2).join('/');
}

/**
 * Builds each function with the stack's options into a temporary directory and measures it (see
 * {@link BundleReport}). Timings alternate between the bundles and the empty process in each round,
 * so load on the machine weighs on both alike.
 */
export async function measureBundles(options: MeasureOptions = {}): Promise<BundleReport[]> {
  const agents = resolve(options.agents ?? join(ROOT, 'demo', 'agents.ts'));
  const runs = options.runs ?? 10;
  const functions = options.functions ?? SWITCHBOARD_ENTRIES;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bundles-'));
  try {
    const built = [];
    for (const fn of functions) {
      const outdir = join(dir, fn);
      const { metafile, files } = await bundleFunction(fn, agents, outdir, { absWorkingDir: dir });
      const bytesOf = (paths: readonly string[]) =>
        paths.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0);
      const weights = new Map<string, number>();
      for (const path of files.initial) {
        for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[path]?.inputs ?? {})) {
          const name = packageOf(input, dir);
          weights.set(name, (weights.get(name) ?? 0) + bytesInOutput);
        }
      }
      built.push({
        fn,
        url: pathToFileURL(join(outdir, ENTRY_FILE)).href,
        entryBytes: bytesOf(files.initial),
        lazyBytes: bytesOf(files.lazy),
        lazyChunks: files.lazy.length,
        heaviest: [...weights]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([name, bytes]) => ({ name, bytes })),
      });
    }
    // One untimed start of each, so the first timed round does not pay for cold disk caches.
    timeProcess(undefined);
    for (const b of built) timeProcess(b.url);
    const empty: { ms: number; rss: number }[] = [];
    const timed = new Map<SwitchboardEntry, { ms: number; rss: number }[]>(built.map((b) => [b.fn, []]));
    for (let round = 0; round < runs; round += 1) {
      empty.push(timeProcess(undefined));
      for (const b of built) timed.get(b.fn)?.push(timeProcess(b.url));
    }
    // The HTTP function's import and first request, against a local table (asynchronous: it answers here).
    const firstRequests: number[] = [];
    const http = built.find((b) => b.fn === 'http');
    if (http) {
      const aws = await startLocalAws();
      try {
        await firstRequest(http.url, aws);
        for (let round = 0; round < runs; round += 1) {
          const answer = await firstRequest(http.url, aws);
          if (answer.statusCode !== 404) throw new Error(`The first request answered ${answer.statusCode}`);
          firstRequests.push(answer.ms);
        }
      } finally {
        await aws.close();
      }
    }
    const emptyMs = median(empty.map((t) => t.ms));
    const emptyRange = range(empty.map((t) => t.ms));
    const emptyRss = median(empty.map((t) => t.rss));
    return built.map(({ url: _url, ...b }) => {
      const samples = timed.get(b.fn) ?? [];
      const importMs = median(samples.map((t) => t.ms));
      return {
        ...b,
        withinGoal: b.entryBytes <= ENTRY_BUDGET_BYTES,
        importMs,
        importRange: range(samples.map((t) => t.ms)),
        emptyMs,
        emptyRange,
        importRatio: importMs / emptyMs,
        rssMb: median(samples.map((t) => t.rss)) / 2 ** 20,
        emptyRssMb: emptyRss / 2 ** 20,
        ...(b.fn === 'http' &&
          firstRequests.length > 0 && {
            firstRequestMs: median(firstRequests),
            firstRequestRange: range(firstRequests),
          }),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The reports as a plain-text table, one function a line. */
export function formatBundleTable(reports: readonly BundleReport[]): string {
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  const rows = reports.map((r) => [
    r.fn,
    `${kb(r.entryBytes)}${r.withinGoal ? '' : ' (over 500)'}`,
    r.lazyChunks > 0 ? `${kb(r.lazyBytes)} in ${r.lazyChunks}` : '-',
    `${r.importRange[0].toFixed(0)}/${r.importMs.toFixed(0)}/${r.importRange[1].toFixed(0)} ms`,
    `${r.importRatio.toFixed(2)}x`,
    `${r.rssMb.toFixed(0)} MB`,
    r.heaviest
      .slice(0, 4)
      .map((p) => `${p.name} ${kb(p.bytes)}`)
      .join(', '),
  ]);
  const header = [
    'function',
    'entry (min.)',
    'lazy chunks',
    'cold import min/median/max',
    'vs empty',
    'RSS',
    'heaviest',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const empty = reports[0];
  const first = reports.find((r) => r.firstRequestMs !== undefined);
  return [
    line(header),
    ...rows.map(line),
    first?.firstRequestRange
      ? `http import + first request (a session read, local table) min/median/max: ${first.firstRequestRange[0].toFixed(0)}/${(first.firstRequestMs ?? 0).toFixed(0)}/${first.firstRequestRange[1].toFixed(0)} ms`
      : '',
    empty
      ? `empty node process (min/median/max): ${empty.emptyRange[0].toFixed(0)}/${empty.emptyMs.toFixed(0)}/${empty.emptyRange[1].toFixed(0)} ms, ${empty.emptyRssMb.toFixed(0)} MB RSS (${process.version})`
      : '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const reports = await measureBundles({ runs: Number(process.env.RUNS ?? 10) });
  console.log(formatBundleTable(reports));
}
