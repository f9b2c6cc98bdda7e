import type { IncomingMessage, ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { bearerToken, gatewayClaims } from '../../lib/auth/index.ts';
import { InvalidTokenError } from '../../lib/errors/index.ts';
import { createLambdaContext } from '../lambda-context.ts';
import { type CorsPolicy, corsPolicy } from './cors.ts';
import { buildAuthorizerEvent, buildHttpEvent } from './http-event.ts';
import { gatewayError, type HttpResponse, mapHttpResult, writeResponse } from './http-response.ts';
import { DEFAULT_CONCURRENCY, InvocationPool, invokeLambda } from './lambda-invoke.ts';
import { readBody } from './read-body.ts';
import { awsId } from './request-info.ts';
import { createRouter } from './routes.ts';
import type { ApiIdentity, HttpApiOptions } from './types.ts';

/** HTTP API's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** Serves one HTTP API request; `settle` waits for the invocations still running (a closing gateway's last step). */
export type HttpApi = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & {
  settle(ms: number): Promise<void>;
};

/** Builds the HTTP API; route keys and limits are validated here, not on the first request. */
export function createHttpApi(options: HttpApiOptions, api: ApiIdentity): HttpApi {
  const route = createRouter(options.routes);
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new Error('http.timeoutMs must be a positive number');
  const functionName = options.functionName ?? 'http';
  const pool = new InvocationPool(options.concurrency ?? DEFAULT_CONCURRENCY);
  const cors: CorsPolicy | undefined = options.cors ? corsPolicy(options.cors) : undefined;
  if (options.authorizer && options.jwtAuthorizer)
    throw new Error('http: give either a Lambda authorizer or a jwtAuthorizer, not both');

  /** As the JWT authoriser: no token or a refused one is 401; the claims go on as strings. */
  async function authorizeJwt(
    event: APIGatewayProxyEventV2,
    verify: (token: string) => Promise<Record<string, unknown>>,
  ): Promise<HttpResponse | undefined> {
    const token = bearerToken(event.headers.authorization);
    if (!token) return gatewayError(401, 'Unauthorized');
    let payload: Record<string, unknown>;
    try {
      payload = await verify(token);
    } catch (error) {
      if (error instanceof InvalidTokenError) return gatewayError(401, 'Unauthorized');
      throw error;
    }
    const scope = payload.scope ?? payload.scp;
    const scopes = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : null;
    Object.assign(event.requestContext, { authorizer: { jwt: { claims: gatewayClaims(payload), scopes } } });
    return undefined;
  }

  async function authorize(event: APIGatewayProxyEventV2): Promise<HttpResponse | undefined> {
    if (options.jwtAuthorizer) return authorizeJwt(event, (token) => options.jwtAuthorizer!.verify(token));
    if (!options.authorizer) return undefined;
    const identity = options.identityHeaders ?? [];
    if (identity.some((name) => !event.headers[name]?.trim())) return gatewayError(401, 'Unauthorized');
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
    const outcome = await invokeLambda(options.handler, event, context, timeoutMs, pool);
    // HTTP API answers 503 when the integration timeout passes, 500 for a failed invocation; past
    // its throttling, 429 before anything runs, which is what a full pool answers here.
    if (outcome.kind === 'throttled') return gatewayError(429, 'Too Many Requests');
    if (outcome.kind === 'timeout') return gatewayError(503, 'Service Unavailable');
    if (outcome.kind === 'failed') throw outcome.error;
    return mapHttpResult(outcome.result);
  }

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const read = await readBody(req, MAX_BODY_BYTES);
    const method = req.method ?? 'GET';
    const match = route(method, (req.url ?? '/').split('?')[0] ?? '/');
    let requestId = awsId();
    let response: HttpResponse;
    // A route that takes OPTIONS (its own, or ANY) gets the preflight; else the gateway answers it.
    const preflight = cors && !match ? cors.preflight(req) : undefined;
    if (!read.ok) response = gatewayError(413, 'Request Entity Too Large');
    else if (preflight) response = preflight;
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
    writeResponse(res, cors && !preflight ? cors.decorate(req, response) : response, requestId);
  };
  return Object.assign(serve, { settle: (ms: number) => pool.whenIdle(ms) });
}
