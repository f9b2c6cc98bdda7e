import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SigV4Signer } from '../../lib/aws/sign.ts';
import { runtimeFromEnv } from '../../lib/boot/index.ts';
import { traceExportFromEnv } from '../../lib/telemetry/export.ts';
import { flushTraces, traced } from '../../lib/telemetry/index.ts';
import { XRayOtlpExporter } from '../../lib/telemetry/otlp-export.ts';

/** A local server standing in for an OTLP endpoint: it keeps every request it is sent. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
let server: Server;
let endpoint: string;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': String(req.headers['content-type']) });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  received.length = 0;
});

/** Protobuf's wire format, enough to walk an ExportTraceServiceRequest: each field's number and bytes. */
function fields(bytes: Uint8Array): [number, Uint8Array | bigint][] {
  const out: [number, Uint8Array | bigint][] = [];
  let at = 0;
  const varint = () => {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[at++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
      shift += 7n;
    }
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const wire = key & 7;
    if (wire === 0) out.push([key >> 3, varint()]);
    else if (wire === 2) {
      const length = Number(varint());
      out.push([key >> 3, bytes.subarray(at, at + length)]);
      at += length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`wire type ${wire}`);
  }
  return out;
}
const sub = (bytes: Uint8Array, n: number) =>
  fields(bytes)
    .filter(([field, value]) => field === n && value instanceof Uint8Array)
    .map(([, value]) => value as Uint8Array);

/** The spans of an OTLP protobuf request: resource_spans(1) > scope_spans(2) > spans(2) > trace_id(1), name(5). */
function decodeSpans(body: Uint8Array): { traceId: string; name: string }[] {
  return sub(body, 1).flatMap((resource) =>
    sub(resource, 2).flatMap((scope) =>
      sub(scope, 2).map((span) => ({
        traceId: Buffer.from(sub(span, 1)[0] ?? []).toString('hex'),
        name: Buffer.from(sub(span, 5)[0] ?? []).toString('utf8'),
      })),
    ),
  );
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' };

describe('X-Ray OTLP exporter', () => {
  it('posts the spans as OTLP protobuf, signed with Signature V4 for xray with the function’s credentials', async () => {
    const provider = new TracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor({
          exporter: new XRayOtlpExporter({ region: 'eu-west-1', url: endpoint, credentials }),
        }),
      ],
    });
    const tracer = provider.getTracer('test');
    const turn = tracer.startSpan('### turn');
    turn.end();
    await provider.forceFlush();

    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request.path).toBe('/v1/traces');
    expect(request.headers['content-type']).toBe('application/x-protobuf');
    expect(request.headers['x-amz-security-token']).toBe('token');
    const authorization = String(request.headers.authorization);
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/xray\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    // The signature covers the bytes the endpoint got: signing them again at the same time gives it.
    const amzDate = String(request.headers['x-amz-date']);
    const at = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
    );
    const again = new SigV4Signer('xray', 'eu-west-1').sign(
      {
        method: 'POST',
        path: '/v1/traces',
        headers: { host: String(request.headers.host), 'content-type': 'application/x-protobuf' },
        body: new Uint8Array(request.body),
      },
      credentials,
      at,
    );
    expect(again.authorization).toBe(authorization);
    expect(decodeSpans(request.body)).toEqual([{ traceId: turn.spanContext().traceId, name: '### turn' }]);
    await provider.shutdown();
  });

  it('fails the export when the endpoint refuses it', async () => {
    const refusing = createServer((_req, res) => {
      res.writeHead(403);
      res.end('{"message":"not allowed"}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1/traces`;
      const refused = new XRayOtlpExporter({ region: 'eu-west-1', url, credentials });
      const provider = new TracerProvider({ spanProcessors: [] });
      const span = provider.getTracer('test').startSpan('x');
      span.end();
      const result = await new Promise<{ code: number; error?: Error }>((resolve) =>
        refused.export([span as never], resolve),
      );
      expect(result.code).toBe(1);
      expect(result.error?.message).toContain('403');
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});

/** A worker's environment that traces to the local server. */
const env = (more: Record<string, string>): NodeJS.ProcessEnv => ({
  SWITCHBOARD_TABLE: 'table',
  SWITCHBOARD_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/turns',
  AWS_REGION: 'eu-west-1',
  SWITCHBOARD_TRACING: 'true',
  ...more,
});

describe('trace export from the environment', () => {
  it("sends a team endpoint the headers its secret holds, as OTLP from the SDK's exporter", async () => {
    const rt = runtimeFromEnv(
      'worker',
      env({ SWITCHBOARD_TRACES_ENDPOINT: endpoint, SWITCHBOARD_TRACES_HEADERS_SECRET: 'team-otlp-headers' }),
    );
    const asked: string[] = [];
    rt.secret = async (id) => {
      asked.push(id);
      return JSON.stringify({ 'x-team-key': 'k-123', 'x-dataset': 'agents' });
    };
    await traced(rt, '### turn', { 'switchboard.run.id': 'r1' }, async () => {});
    await flushTraces(rt);

    expect(asked).toContain('team-otlp-headers');
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request.headers['x-team-key']).toBe('k-123');
    expect(request.headers['x-dataset']).toBe('agents');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body.toString('utf8')).toContain('### turn');
  });

  it('exports nothing with a sample ratio of 0', async () => {
    const rt = runtimeFromEnv(
      'worker',
      env({ SWITCHBOARD_TRACES_ENDPOINT: endpoint, SWITCHBOARD_TRACES_SAMPLE_RATIO: '0' }),
    );
    for (let i = 0; i < 20; i++) await traced(rt, '### turn', {}, async () => {});
    await flushTraces(rt);
    expect(received).toEqual([]);
  });

  it('reads X-Ray by default, a ratio, and refuses what cannot work', () => {
    expect(traceExportFromEnv({ AWS_REGION: 'eu-west-1' }, 'batch')).toBeUndefined();
    expect(traceExportFromEnv(env({}), 'batch')).toEqual({
      endpoint: 'xray',
      region: 'eu-west-1',
      sampleRatio: 1,
      flush: 'batch',
    });
    expect(
      traceExportFromEnv(env({ SWITCHBOARD_TRACES_SAMPLE_RATIO: '0.25' }), 'invocation')?.sampleRatio,
    ).toBe(0.25);
    expect(() =>
      traceExportFromEnv(env({ SWITCHBOARD_TRACES_ENDPOINT: 'http://otel.example.com' }), 'batch'),
    ).toThrow(/https/);
    expect(() => traceExportFromEnv(env({ SWITCHBOARD_TRACES_SAMPLE_RATIO: '2' }), 'batch')).toThrow(
      /0 to 1/,
    );
  });
});

describe("a team endpoint and Lambda's X-Ray header", () => {
  it("does not follow an unsampled X-Ray header (active tracing off), but keeps a host's traceparent", async () => {
    const rt = runtimeFromEnv('worker', env({ SWITCHBOARD_TRACES_ENDPOINT: endpoint }));
    const xray = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0';
    await traced(rt, 'lambda-unsampled', {}, async () => {}, { carrier: { 'x-amzn-trace-id': xray } });
    const unsampledHost = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';
    await traced(rt, 'host-unsampled', {}, async () => {}, {
      carrier: { 'x-amzn-trace-id': xray, traceparent: unsampledHost },
    });
    await flushTraces(rt);
    const names = received.flatMap((r) =>
      [...r.body.toString('utf8').matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]),
    );
    expect(names).toContain('lambda-unsampled');
    expect(names).not.toContain('host-unsampled');
  });
});
