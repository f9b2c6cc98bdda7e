/**
 * What exporting a turn's spans costs, in the sandbox, with a local OTLP receiver (a node http server
 * that counts requests and bytes, answering after RECEIVER_DELAY_MS to stand in for a remote
 * endpoint): each function's invocation ending with a flush (`invocation`: its end waits for the
 * export), against spans left to the batch processor, which sends them in the background (`batch`).
 * Then the X-Ray exporter's own work per export (OTLP protobuf and the Signature V4 signature).
 *
 * Run: `npm run bench:traces`. TURNS (20) changes the count. docs/performance.md, "Trace export",
 * says what was chosen with these figures.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { createSwitchboard } from '../lib/index.ts';
import { ExportProcessor, type TraceExport } from '../lib/telemetry/export.ts';
import { XRayOtlpExporter } from '../lib/telemetry/otlp-export.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { fmt, mean, quantile, Table } from './report.ts';
import { TEST_LIMITS } from './support/limits.ts';
import { api, TEST_REF_KEY } from './support/sandbox-api.ts';

const TURNS = Number(process.env.TURNS ?? 20);

/** A local OTLP/HTTP receiver: counts what it gets, answers 200 after `delayMs`. */
async function receiver(delayMs: number) {
  const got = { requests: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      got.bytes += chunk.length;
    });
    req.on('end', () => {
      got.requests += 1;
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  return { got, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The export processor, timing what each end of an invocation waits for (its forceFlush). */
class TimedExport extends ExportProcessor {
  readonly waits: number[] = [];
  override async forceFlush(): Promise<void> {
    const started = performance.now();
    await super.forceFlush();
    this.waits.push(performance.now() - started);
  }
}

interface Run {
  flush: TraceExport['flush'];
  delayMs: number;
  waits: number[];
  latencies: number[];
  requests: number;
  bytes: number;
}

/** TURNS turns (a message to an echo agent, answered within the request) with one export mode. */
async function run(flush: TraceExport['flush'], delayMs: number): Promise<Run> {
  const sink = await receiver(delayMs);
  const processor = new TimedExport(
    { endpoint: sink.url, region: 'eu-west-1', sampleRatio: 1, flush },
    { secret: async () => '{}' },
  );
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'echo' },
    invoke: async ({ message }) => ({ content: `echo: ${message}` }),
  });
  const sandbox = await startSandbox({
    app,
    port: 0,
    logLevel: 'ERROR',
    visibilityTimeoutSeconds: 2,
    refKey: TEST_REF_KEY,
    settings: { limits: TEST_LIMITS },
    traces: { processors: [processor], sampleRatio: 1 },
  });
  const latencies: number[] = [];
  try {
    // One turn first: the SDK and the exporter load with the first span, not what is measured.
    await api(sandbox.url, 'POST', '/api/chat', {
      session_id: `warm-${flush}-${delayMs}`,
      agent_id: 'echo',
      content: 'hi',
      wait_ms: 10_000,
    });
    processor.waits.length = 0;
    const before = { ...sink.got };
    for (let i = 0; i < TURNS; i++) {
      const started = performance.now();
      const res = await api(sandbox.url, 'POST', '/api/chat', {
        session_id: `bench-${flush}-${delayMs}-${i}`,
        agent_id: 'echo',
        content: 'hi',
        wait_ms: 10_000,
      });
      if (res.status !== 200) throw new Error(`POST /api/chat answered ${res.status}: ${res.text}`);
      latencies.push(performance.now() - started);
    }
    // What is left goes now (a batch's schedule, or the environment's end), outside the measure.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await processor.shutdown();
    return {
      flush,
      delayMs,
      waits: [...processor.waits],
      latencies,
      requests: sink.got.requests - before.requests,
      bytes: sink.got.bytes - before.bytes,
    };
  } finally {
    await sandbox.close();
    await sink.close();
  }
}

/** The X-Ray exporter's own work for one turn's spans: OTLP protobuf and the signature, to a local receiver. */
async function xrayExportCost(spansPerExport: number, exports: number) {
  const sink = await receiver(0);
  const exporter = new XRayOtlpExporter({
    region: 'eu-west-1',
    url: sink.url,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
  });
  const provider = new TracerProvider({ spanProcessors: [] });
  const tracer = provider.getTracer('bench');
  const spans = Array.from({ length: spansPerExport }, (_, i) => {
    const span = tracer.startSpan(i === 0 ? 'turn' : `DynamoDB.Query`, {
      attributes: {
        'rpc.system': 'aws-api',
        'rpc.service': 'DynamoDB',
        'switchboard.session.id': 'bench-session',
      },
    });
    span.end();
    return span as never;
  });
  const times: number[] = [];
  for (let i = 0; i < exports; i++) {
    const started = performance.now();
    await new Promise((resolve) => exporter.export(spans, resolve));
    times.push(performance.now() - started);
  }
  const bytes = sink.got.bytes / Math.max(1, sink.got.requests);
  await sink.close();
  return { times, bytes };
}

const runs: Run[] = [];
for (const delayMs of [0, 20]) {
  for (const flush of ['invocation', 'batch'] as const) runs.push(await run(flush, delayMs));
}

const table = new Table([
  'export',
  'receiver delay',
  'invocation end waits p50 / p95 (ms)',
  'POST /api/chat p50 / p95 (ms)',
  'OTLP requests / turn',
  'bytes / turn',
]);
for (const r of runs) {
  table.row(
    r.flush === 'invocation' ? 'flush at the end of each invocation' : 'batched (background)',
    `${r.delayMs} ms`,
    `${fmt(quantile(r.waits, 0.5), 2)} / ${fmt(quantile(r.waits, 0.95), 2)}`,
    `${fmt(quantile(r.latencies, 0.5))} / ${fmt(quantile(r.latencies, 0.95))}`,
    fmt(r.requests / TURNS, 2),
    fmt(r.bytes / TURNS, 0),
  );
}
console.log(
  `== Trace export in the sandbox: ${TURNS} turns per row (echo agent, answered within the request) ==\n`,
);
console.log(table.toString());

const cost = await xrayExportCost(15, 200);
console.log(
  '\n== The X-Ray exporter: OTLP protobuf + Signature V4 + POST, 15 spans, to a local receiver ==\n',
);
console.log(
  new Table(['exports', 'mean (ms)', 'p95 (ms)', 'request bytes'])
    .row(cost.times.length, fmt(mean(cost.times), 2), fmt(quantile(cost.times, 0.95), 2), fmt(cost.bytes, 0))
    .toString(),
);
process.exit(0);
