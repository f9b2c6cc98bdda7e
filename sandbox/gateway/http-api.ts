import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createLambdaContext } from '../lambda-context.ts';
import { buildAuthorizerEvent, buildHttpEvent } from './http-event.ts';
import { gatewayError, type HttpResponse, mapHttpResult, writeResponse } from './http-response.ts';
import { readBody } from './read-body.ts';
import { awsId } from './request-info.ts';
import { createRouter } from './routes.ts';
import type { ApiIdentity, HttpApiOptions } from './types.ts';

/** HTTP API's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TIMED_OUT = Symbol('timed out');

/** Serves one HTTP API request. */
export type HttpApi = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Builds the HTTP API; route keys are validated here, not on the first request. */
export function createHttpApi(options: HttpApiOptions, api: ApiIdentity): HttpApi {
  const route = createRouter(options.routes);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const functionName = options.functionName ?? 'http';

  async function authorize(event: APIGatewayProxyEventV2): Promise<HttpResponse | undefined> {
    if (!options.authorizer) return undefined;
    const context = await options.authorizer(buildAuthorizerEvent(event, api));
    if (context === null) return gatewayError(403, 'Forbidden');
    Object.assign(event.requestContext, { authorizer: { lambda: context } });
    return undefined;
  }

  async function invoke(event: APIGatewayProxyEventV2): Promise<HttpResponse> {
    const context = createLambdaContext({
      functionName,
      timeoutMs,
      region: api.region,
      accountId: api.accountId,
    });
    const result = await withTimeout(options.handler(event, context), timeoutMs);
    if (result === TIMED_OUT) return gatewayError(503, 'Service Unavailable');
    return mapHttpResult(result);
  }

  return async (req, res) => {
    const read = await readBody(req, MAX_BODY_BYTES);
    const match = route(req.method ?? 'GET', (req.url ?? '/').split('?')[0] ?? '/');
    let requestId = awsId();
    let response: HttpResponse;
    if (!read.ok) response = gatewayError(413, 'Request Entity Too Large');
    else if (!match) response = gatewayError(404, 'Not Found');
    else {
      const event = buildHttpEvent(req, read.body, match, api);
      requestId = event.requestContext.requestId;
      try {
        response = (await authorize(event)) ?? (await invoke(event));
      } catch (error) {
        console.error(`[gateway] ${match.route.key} failed:`, error);
        response = gatewayError(500, 'Internal Server Error');
      }
    }
    writeResponse(res, response, requestId);
  };
}
