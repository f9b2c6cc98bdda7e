/**
 * The exporters of a deployed function's spans, loaded with the first span that ends (export.ts):
 * X-Ray's OTLP endpoint, each request signed with the function's role; or a team's OTLP/HTTP
 * endpoint with the headers its secret holds. Both send OTLP as the OpenTelemetry packages write it:
 * no span format of Switchboard's own.
 */
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { type AwsCredentials, defaultCredentials } from '../aws/credentials.ts';
import { type AwsCredentialIdentity, SigV4Signer } from '../aws/sign.ts';
import { type ExportDeps, type TraceExport, xrayTracesUrl } from './export.ts';

/** How long one export may take before it is given up (the SDK's processor cancels it then too). */
const EXPORT_TIMEOUT_MS = 10_000;

export interface XRayExporterOptions {
  region: string;
  /** The endpoint; X-Ray's of the region by default (a test names its own server). */
  url?: string;
  /** The function's credentials, asked before each export. Default: the environment's (Lambda's role). */
  credentials?: AwsCredentials;
}

/**
 * Sends spans to X-Ray's OTLP endpoint (`https://xray.<region>.amazonaws.com/v1/traces`) as OTLP
 * protobuf, signed with Signature V4 for the `xray` service: what the endpoint requires, with the
 * role's `xray:PutSpans`. Transaction Search must be on in the account.
 */
export class XRayOtlpExporter implements SpanExporter {
  readonly url: string;
  readonly #signer: SigV4Signer;
  readonly #credentials: AwsCredentials;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(options: XRayExporterOptions) {
    this.url = options.url ?? xrayTracesUrl(options.region);
    this.#signer = new SigV4Signer('xray', options.region);
    this.#credentials = options.credentials ?? defaultCredentials();
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const sent = this.#send(spans).then(
      () => done({ code: ExportResultCode.SUCCESS }),
      (error: unknown) => done({ code: ExportResultCode.FAILED, error: error as Error }),
    );
    this.#pending.add(sent);
    void sent.finally(() => this.#pending.delete(sent));
  }

  async #send(spans: ReadableSpan[]): Promise<void> {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    if (!body) throw new Error('The spans could not be serialised.');
    const url = new URL(this.url);
    const credentials: AwsCredentialIdentity =
      typeof this.#credentials === 'function' ? await this.#credentials() : this.#credentials;
    const headers = { host: url.host, 'content-type': 'application/x-protobuf' };
    const signed = this.#signer.sign({ method: 'POST', path: url.pathname, headers, body }, credentials);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': headers['content-type'], ...signed },
      // The serializer's bytes sit in an ArrayBuffer of their own (never a shared one).
      body: body as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    // Read to the end, so the connection is reused.
    const answer = await response.text();
    if (!response.ok)
      throw new Error(`X-Ray's OTLP endpoint answered ${response.status}: ${answer.slice(0, 200)}`);
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.#pending);
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }
}

/**
 * The headers a team's endpoint takes, from a secret holding a JSON object of strings
 * (`{"x-honeycomb-team": "…"}`), read once per execution environment (rt.secret).
 */
export async function headersFromSecret(deps: ExportDeps, secretId: string): Promise<Record<string, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await deps.secret(secretId));
  } catch (error) {
    if (error instanceof SyntaxError)
      throw new Error(
        'The trace headers secret is not JSON: it must hold an object of header names to values.',
      );
    throw error;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('The trace headers secret must hold a JSON object of header names to values.');
  return Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, String(value)]));
}

/** The exporter of a {@link TraceExport}: X-Ray's, signed, or OTLP/HTTP (JSON) with the secret's headers. */
export function exporterOf(settings: TraceExport, deps: ExportDeps): SpanExporter {
  if (settings.endpoint === 'xray') return new XRayOtlpExporter({ region: settings.region });
  const secretId = settings.headersSecret;
  return new OTLPTraceExporter({
    url: settings.endpoint,
    timeoutMillis: EXPORT_TIMEOUT_MS,
    ...(secretId && {
      // Asked before each request (the runtime reads the secret once and keeps it). The exporter's
      // factory must not throw: without its headers the request fails, and the export with it.
      headers: () => headersFromSecret(deps, secretId).catch(() => ({})),
    }),
  });
}

/** The batch processor of a {@link TraceExport}. */
export function exportProcessor(settings: TraceExport, deps: ExportDeps): SpanProcessor {
  return new BatchSpanProcessor({
    exporter: exporterOf(settings, deps),
    // Short: an API function's spans leave during its next invocation (Lambda freezes it in between).
    scheduledDelayMillis: 1000,
    exportTimeoutMillis: EXPORT_TIMEOUT_MS,
  });
}
