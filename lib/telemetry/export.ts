/**
 * Where a deployed function's spans go (`SWITCHBOARD_TRACES_*`, set by the construct's `tracing`
 * prop) and the span processor that sends them. Nothing here loads the OpenTelemetry SDK or an
 * exporter: the processor imports them (otlp-export.ts) with the first span that ends, so a function
 * that traces pays for them only once it has a span to send, and one that does not never parses them.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

/** Where spans are exported and how often they are kept. */
export interface TraceExport {
  /** `xray` (X-Ray's OTLP endpoint of the region, signed with the function's role) or an OTLP/HTTP traces URL. */
  endpoint: 'xray' | string;
  /** The region of X-Ray's endpoint and of the signature. */
  region: string;
  /** A Secrets Manager secret (ARN or name) holding the JSON headers of a team's endpoint. */
  headersSecret?: string;
  /** The share of new traces kept, 0 to 1. */
  sampleRatio: number;
  /**
   * When spans leave: `invocation` (the end of each invocation waits for their export: the worker and
   * the sweep, which no host waits on) or `batch` (they leave in the background, on the batch
   * processor's schedule, during a later invocation: the API functions, whose host waits for the
   * answer). See docs/performance.md, "Trace export".
   */
  flush: 'invocation' | 'batch';
}

/** X-Ray's OTLP traces endpoint in a region (Transaction Search must be on). */
export const xrayTracesUrl = (region: string) => `https://xray.${region}.amazonaws.com/v1/traces`;

/**
 * The export a function's environment names, or undefined when it does not trace. Throws on a
 * setting that cannot work (an endpoint that is not https, a ratio outside 0 to 1), at the cold start.
 */
export function traceExportFromEnv(
  env: NodeJS.ProcessEnv,
  flush: TraceExport['flush'],
): TraceExport | undefined {
  if (env.SWITCHBOARD_TRACING !== 'true') return undefined;
  const region = env.AWS_REGION ?? '';
  const endpoint = env.SWITCHBOARD_TRACES_ENDPOINT?.trim() || 'xray';
  if (endpoint !== 'xray') {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new Error(`SWITCHBOARD_TRACES_ENDPOINT: "${endpoint}" is neither xray nor a URL.`);
    }
    const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
    if (url.protocol !== 'https:' && !(local && url.protocol === 'http:'))
      throw new Error(`SWITCHBOARD_TRACES_ENDPOINT: "${endpoint}" is not an https URL.`);
  }
  const ratioText = env.SWITCHBOARD_TRACES_SAMPLE_RATIO?.trim();
  const sampleRatio = ratioText ? Number(ratioText) : 1;
  if (!Number.isFinite(sampleRatio) || sampleRatio < 0 || sampleRatio > 1)
    throw new Error(`SWITCHBOARD_TRACES_SAMPLE_RATIO: "${ratioText}" is not a number from 0 to 1.`);
  const headersSecret = env.SWITCHBOARD_TRACES_HEADERS_SECRET?.trim() || undefined;
  return { endpoint, region, sampleRatio, flush, ...(headersSecret && { headersSecret }) };
}

/** What the export needs of the runtime: its secrets (a team endpoint's headers). */
export interface ExportDeps {
  secret: (secretId: string) => Promise<string>;
}

/**
 * The span processor of a {@link TraceExport}: a batch processor around the export's exporter, both
 * loaded with the first span that ends. Spans that end while they load wait in order.
 */
export class ExportProcessor implements SpanProcessor {
  #loaded: SpanProcessor | undefined;
  #loading: Promise<SpanProcessor> | undefined;
  #waiting: ReadableSpan[] = [];

  constructor(
    readonly settings: TraceExport,
    readonly deps: ExportDeps,
  ) {}

  #load(): Promise<SpanProcessor> {
    this.#loading ??= import('./otlp-export.ts').then(({ exportProcessor }) => {
      const processor = exportProcessor(this.settings, this.deps);
      this.#loaded = processor;
      for (const span of this.#waiting.splice(0)) processor.onEnd(span);
      return processor;
    });
    return this.#loading;
  }

  onStart(span: Span, parent: Context): void {
    this.#loaded?.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    if (this.#loaded) {
      this.#loaded.onEnd(span);
      return;
    }
    this.#waiting.push(span);
    void this.#load();
  }

  /** Called at the end of every invocation: with `batch`, it leaves the spans to the schedule. */
  async forceFlush(): Promise<void> {
    if (this.settings.flush === 'batch' || !this.#loading) return;
    await (await this.#loading).forceFlush();
  }

  /** Sends what is left, then stops. */
  async shutdown(): Promise<void> {
    if (!this.#loading) return;
    await (await this.#loading).shutdown();
  }
}
