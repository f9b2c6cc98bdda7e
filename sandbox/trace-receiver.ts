import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IExportTraceServiceResponse } from '@opentelemetry/otlp-transformer';

/**
 * The sandbox's own OTLP receiver: its functions export their spans here with the OTLP/HTTP exporter
 * (JSON), as a deployed stack's export to X-Ray or a team's backend, and the sandbox keeps the
 * traces of its sessions, a bounded number, for `switchboard inspect <session> --trace` and the
 * inspector page (`/sandbox/inspect`).
 */

/** Where the functions export (OTLP/HTTP's own path, under the sandbox's pages). */
export const OTLP_TRACES_PATH = '/sandbox/otlp/v1/traces';
/** Where the kept traces are read: `?session=ID` for a session's turns, without it the sessions. */
export const TRACES_PATH = '/sandbox/traces';

/**
 * An OTLP/JSON export request, as far as the receiver reads it (opentelemetry-proto's
 * `ExportTraceServiceRequest` in its JSON mapping: ids in hex, times in nanoseconds as decimal
 * strings). The transformer package serialises it but exports no type of the request.
 */
interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  bytesValue?: string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  events?: { name: string; timeUnixNano: string | number; attributes?: OtlpKeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes?: OtlpKeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface OtlpTraceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/** A span as the receiver keeps it and `GET /sandbox/traces` answers it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OpenTelemetry's kind: `internal`, `server`, `client`, `producer`, `consumer`. */
  kind: string;
  /** The function that made it (its resource's `service.name`). */
  service?: string;
  /** Milliseconds since the epoch, with fractions. */
  startMs: number;
  durationMs: number;
  attributes: Record<string, unknown>;
  events: { name: string; timeMs: number; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string }[];
  /** `error` with its message when the span failed. */
  status: { code: 'unset' | 'ok' | 'error'; message?: string };
}

/** A span with the spans it started. */
export interface SpanNode extends ReceivedSpan {
  children: SpanNode[];
}

/** One trace of a session: a turn, from the host's request to the worker's last call. */
export interface TurnTrace {
  traceId: string;
  sessionId?: string;
  runId?: string;
  agentId?: string;
  startMs: number;
  durationMs: number;
  spans: number;
  /** The spans whose parent is not in the trace (the host's request, or the turn of a continuation). */
  roots: SpanNode[];
}

/** A session the receiver holds traces of. */
export interface TracedSession {
  sessionId: string;
  traces: number;
  lastMs: number;
}

const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'];
const STATUS = ['unset', 'ok', 'error'] as const;
/** The attribute a turn's span names its session by (the host's id, never a ref's owner scope). */
const SESSION = 'switchboard.session.id';

function anyValue(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.bytesValue !== undefined) return value.bytesValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return undefined;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

/** Nanoseconds since the epoch (a decimal string) as milliseconds, with their fraction. */
function millis(nanos: string | number): number {
  const n = typeof nanos === 'number' ? BigInt(Math.trunc(nanos)) : BigInt(nanos || '0');
  return Number(n / 1000n) / 1000;
}

function received(span: OtlpSpan, service: string | undefined): ReceivedSpan {
  const startMs = millis(span.startTimeUnixNano);
  const code = STATUS[span.status?.code ?? 0] ?? 'unset';
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: KINDS[(span.kind ?? 1) - 1] ?? 'internal',
    ...(service !== undefined && { service }),
    startMs,
    durationMs: Math.max(0, millis(span.endTimeUnixNano) - startMs),
    attributes: attributesOf(span.attributes),
    events: (span.events ?? []).map((e) => ({
      name: e.name,
      timeMs: millis(e.timeUnixNano),
      attributes: attributesOf(e.attributes),
    })),
    links: (span.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
    status: { code, ...(span.status?.message && { message: span.status.message }) },
  };
}

interface Kept {
  spans: ReceivedSpan[];
  bytes: number;
  sessionId?: string;
}

/** The spans of one trace as a tree (children in the order they started), with its ids. */
export function treeOf(traceId: string, spans: readonly ReceivedSpan[]): TurnTrace {
  const nodes = new Map(spans.map((s) => [s.spanId, { ...s, children: [] as SpanNode[] }]));
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentSpanId ? nodes.get(node.parentSpanId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const byStart = (a: SpanNode, b: SpanNode) => a.startMs - b.startMs;
  for (const node of nodes.values()) node.children.sort(byStart);
  roots.sort(byStart);
  const startMs = Math.min(...spans.map((s) => s.startMs));
  const endMs = Math.max(...spans.map((s) => s.startMs + s.durationMs));
  const turn = spans.find((s) => s.attributes[SESSION] !== undefined);
  const text = (key: string) =>
    turn?.attributes[key] === undefined ? undefined : String(turn.attributes[key]);
  const [sessionId, runId, agentId] = [SESSION, 'switchboard.run.id', 'switchboard.agent.id'].map(text);
  return {
    traceId,
    ...(sessionId !== undefined && { sessionId }),
    ...(runId !== undefined && { runId }),
    ...(agentId !== undefined && { agentId }),
    startMs,
    durationMs: endMs - startMs,
    spans: spans.length,
    roots,
  };
}

/** How much the receiver keeps, and how large an export it takes. */
export interface TraceReceiverLimits {
  /**
   * The last traces kept. Past it (or `maxBytes`) the least recently received trace of no session
   * goes first (a page's reads, the sweep), then the least recently received of all. Default 500.
   */
  maxTraces?: number;
  /** Bytes of spans kept in all (their JSON). Default 16 MiB. */
  maxBytes?: number;
  /** The largest export request taken (413 past it). Default 4 MiB. */
  maxRequestBytes?: number;
}

/** The traces the sandbox's functions exported, kept by trace and found by session. */
export class TraceReceiver {
  private readonly kept = new Map<string, Kept>();
  private bytes = 0;
  private readonly maxTraces: number;
  private readonly maxBytes: number;
  private readonly maxRequestBytes: number;

  constructor(limits: TraceReceiverLimits = {}) {
    this.maxTraces = limits.maxTraces ?? 500;
    this.maxBytes = limits.maxBytes ?? 16 * 1024 * 1024;
    this.maxRequestBytes = limits.maxRequestBytes ?? 4 * 1024 * 1024;
  }

  /** Keeps the spans of an OTLP/JSON export request; answers how many it could not read. */
  receive(request: OtlpTraceRequest): IExportTraceServiceResponse {
    let rejected = 0;
    for (const resource of request.resourceSpans ?? []) {
      const service = attributesOf(resource.resource?.attributes)['service.name'];
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          if (!(typeof span?.traceId === 'string' && typeof span.spanId === 'string' && span.name)) {
            rejected += 1;
            continue;
          }
          this.add(received(span, typeof service === 'string' ? service : undefined));
        }
      }
    }
    return rejected > 0
      ? { partialSuccess: { rejectedSpans: rejected, errorMessage: 'spans without ids or a name' } }
      : {};
  }

  private add(span: ReceivedSpan): void {
    const size = JSON.stringify(span).length;
    // A trace that receives spans moves to the end: the one least recently received goes first.
    const trace = this.kept.get(span.traceId) ?? { spans: [], bytes: 0 };
    this.kept.delete(span.traceId);
    this.kept.set(span.traceId, trace);
    trace.spans.push(span);
    trace.bytes += size;
    this.bytes += size;
    const session = span.attributes[SESSION];
    if (session !== undefined) trace.sessionId = String(session);
    while (this.kept.size > 1 && (this.kept.size > this.maxTraces || this.bytes > this.maxBytes)) {
      // Traces of no session (a page's reads, the sweep, a batch's own invocation) go before a turn's.
      const [oldest, old] =
        [...this.kept].find(([id, t]) => t.sessionId === undefined && id !== span.traceId) ??
        (this.kept.entries().next().value as [string, Kept]);
      this.kept.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  /** The sessions with traces, the latest first. */
  sessions(): TracedSession[] {
    const found = new Map<string, TracedSession>();
    for (const trace of this.kept.values()) {
      if (trace.sessionId === undefined) continue;
      const last = Math.max(...trace.spans.map((s) => s.startMs + s.durationMs));
      const seen = found.get(trace.sessionId) ?? { sessionId: trace.sessionId, traces: 0, lastMs: 0 };
      found.set(trace.sessionId, { ...seen, traces: seen.traces + 1, lastMs: Math.max(seen.lastMs, last) });
    }
    return [...found.values()].sort((a, b) => b.lastMs - a.lastMs);
  }

  /** A session's traces (one a turn), oldest first, each as a span tree. */
  traces(sessionId: string): TurnTrace[] {
    return [...this.kept.entries()]
      .filter(([, t]) => t.sessionId === sessionId)
      .map(([id, t]) => treeOf(id, t.spans))
      .sort((a, b) => a.startMs - b.startMs);
  }

  /**
   * Serves `POST /sandbox/otlp/v1/traces` (OTLP/HTTP with JSON; protobuf is answered 415) and
   * `GET /sandbox/traces[?session=ID]`. Returns true when it answered.
   */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname === OTLP_TRACES_PATH && req.method === 'POST') {
      this.export(req, res);
      return true;
    }
    if (url.pathname !== TRACES_PATH || req.method !== 'GET') return false;
    const session = url.searchParams.get('session');
    const body = session === null ? { sessions: this.sessions() } : { session, traces: this.traces(session) };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
    return true;
  }

  private export(req: IncomingMessage, res: ServerResponse): void {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('application/json')) {
      req.resume();
      answer(415, { error: 'The sandbox takes OTLP/HTTP with JSON (application/json), not protobuf.' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= this.maxRequestBytes) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > this.maxRequestBytes) return answer(413, { error: 'The export is too large.' });
      let request: OtlpTraceRequest;
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraceRequest;
      } catch {
        return answer(400, { error: 'The export is not JSON.' });
      }
      answer(200, this.receive(request));
    });
  }
}
