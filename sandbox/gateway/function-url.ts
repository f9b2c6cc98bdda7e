import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { ResponseSink } from '../../lib/agui/index.ts';
import type { CorsConfig } from '../../lib/contract/index.ts';
import { asInvocation, createLambdaContext } from '../lambda-context.ts';
import { corsPolicy } from './cors.ts';
import { buildHttpEvent } from './http-event.ts';
import { gatewayError, writeResponse } from './http-response.ts';
import { InvocationPool, LAMBDA_EVENT_MAX_BYTES } from './lambda-invoke.ts';
import { readBody } from './read-body.ts';
import { awsId } from './request-info.ts';
import type { ApiIdentity } from './types.ts';

/** What a response-streaming function may send through its URL: 200 MB, then Lambda cuts it off. */
export const STREAMED_RESPONSE_MAX_BYTES = 200 * 1024 * 1024;

/** A response-streaming handler: what `awslambda.streamifyResponse` wraps, with the stream as a sink. */
export type StreamingHandler = (
  event: APIGatewayProxyEventV2,
  sink: ResponseSink,
  context: Context,
) => Promise<void>;

/** A Lambda function URL in RESPONSE_STREAM mode, served under a path of the gateway's port. */
export interface FunctionUrlOptions {
  /** The path it is served under (`/agui`); on AWS a function URL has a host of its own, so the handler sees the path without it. */
  prefix: string;
  handler: StreamingHandler;
  /** The function's timeout: the stream is cut off there, as Lambda stops the function. Default 900 000. */
  timeoutMs?: number;
  /** The URL's CORS configuration: Lambda answers the preflight and adds the headers by it. */
  cors?: CorsConfig;
  /** Default 'agui'. */
  functionName?: string;
  /** Default {@link STREAMED_RESPONSE_MAX_BYTES}; shortened by tests. */
  maxResponseBytes?: number;
}

/** A sink over the client's response: what AWS enforces on a streamed response, enforced here. */
function socketSink(
  res: ServerResponse,
  maxBytes: number,
  decorate: (headers: Record<string, string>) => Record<string, string>,
) {
  let sent = 0;
  let cut = false;
  const sink: ResponseSink & { cut(): void } = {
    start(statusCode, headers) {
      res.writeHead(statusCode, { ...decorate(headers), 'x-amzn-requestid': awsId() });
      res.flushHeaders();
    },
    write(chunk) {
      if (sink.closed) return;
      sent += Buffer.byteLength(chunk);
      // Past the limit Lambda ends the invocation and the client's stream breaks off.
      if (sent > maxBytes) return sink.cut();
      res.write(chunk);
    },
    end() {
      if (!res.writableEnded && !res.destroyed) res.end();
    },
    get closed() {
      return cut || res.destroyed || res.writableEnded;
    },
    cut() {
      cut = true;
      res.destroy();
    },
  };
  return sink;
}

/**
 * Serves one function URL: a request under `prefix` becomes the function URL's payload 2.0 event
 * (route `$default`, its path without the prefix), a body of Lambda's 6 MB or more is refused, and
 * the handler writes its streamed answer to the socket. Returns whether the request was the URL's.
 */
export function createFunctionUrl(options: FunctionUrlOptions, api: ApiIdentity) {
  const timeoutMs = options.timeoutMs ?? 900_000;
  const maxBytes = options.maxResponseBytes ?? STREAMED_RESPONSE_MAX_BYTES;
  const cors = options.cors ? corsPolicy(options.cors) : undefined;
  const functionName = options.functionName ?? 'agui';
  // Never refuses: it only tells a closing gateway which invocations still run.
  const running = new InvocationPool(Number.POSITIVE_INFINITY);
  const ours = (url: string | undefined) => {
    const path = (url ?? '/').split('?')[0] ?? '/';
    return path === options.prefix || path.startsWith(`${options.prefix}/`);
  };

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const preflight = cors?.preflight(req);
    if (preflight) return writeResponse(res, preflight, awsId());
    const read = await readBody(req, LAMBDA_EVENT_MAX_BYTES);
    if (!read.ok)
      return writeResponse(res, gatewayError(413, 'Request must be smaller than 6291456 bytes'), awsId());
    const match = { route: { key: '$default', method: 'ANY', segments: [] } };
    const event = buildHttpEvent(req, read.body, match, api);
    // Lambda refuses an event (body, headers and all) of 6 MB or more before the function runs.
    if (Buffer.byteLength(JSON.stringify(event)) >= LAMBDA_EVENT_MAX_BYTES)
      return writeResponse(res, gatewayError(413, 'Request must be smaller than 6291456 bytes'), awsId());
    const rawPath = event.rawPath.slice(options.prefix.length) || '/';
    Object.assign(event, { rawPath });
    Object.assign(event.requestContext.http, { path: rawPath });
    const decorate = (headers: Record<string, string>) =>
      (cors
        ? cors.decorate(req, { statusCode: 200, headers, body: Buffer.alloc(0) }).headers
        : headers) as Record<string, string>;
    const sink = socketSink(res, maxBytes, decorate);
    const context = createLambdaContext({
      functionName,
      timeoutMs,
      region: api.region,
      accountId: api.accountId,
    });
    const timer = setTimeout(() => sink.cut(), timeoutMs);
    const release = running.take() as () => void;
    try {
      await asInvocation(() => options.handler(event, sink, context));
    } catch (error) {
      console.error(`[function-url] ${functionName} failed:`, error);
      if (!res.headersSent) writeResponse(res, gatewayError(502, 'Internal Server Error'), awsId());
      else sink.cut();
    } finally {
      clearTimeout(timer);
      release();
      sink.end();
    }
  }

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!ours(req.url)) return false;
    serve(req, res).catch((error: unknown) => {
      if (req.destroyed || res.destroyed) return;
      console.error('[function-url] request failed:', error);
      writeResponse(res, gatewayError(500, 'Internal Server Error'), awsId());
    });
    return true;
  };
  return Object.assign(handle, { settle: (ms: number) => running.whenIdle(ms) });
}
