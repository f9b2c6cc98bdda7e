import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import {
  AUTH_ENV,
  type AuthorizerShape,
  bearerToken,
  gatewayClaims,
  identify,
  type JwtVerifier,
  verifierFromEnv,
} from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { jsonSchemasReady, parseJsonBody } from '../contract/index.ts';
import { NotFoundError, UnauthorizedError } from '../errors/index.ts';
import { lazyRuntime } from '../handlers/runtime.ts';
import { limitUser } from '../limits/index.ts';
import { instrumentHandler } from '../telemetry/index.ts';
import { errorResponse } from '../transport/index.ts';
import { acceptRun, type Followed } from './accept.ts';
import { followRun } from './follow.ts';
import { clientKnows } from './input.ts';
import { AguiTranslator } from './translate.ts';
import type { ResponseSink } from './types.ts';

/** Who a request comes from: the claims of its verified token, or undefined where nothing authenticates. */
export type AguiAuthenticate = (event: APIGatewayProxyEventV2) => Promise<AuthorizerShape | undefined>;

/**
 * A function URL has no JWT authoriser, so the endpoint verifies the bearer token itself, with the
 * verifier the WebSocket API's `$connect` authoriser uses, and hands on the same claims (every value
 * a string) that `resolveContext` reads on the other APIs.
 */
export function jwtAuthentication(verify: JwtVerifier): AguiAuthenticate {
  return async (event) => {
    const token = bearerToken(event.headers?.authorization);
    if (!token) throw new UnauthorizedError('An AG-UI request needs Authorization: Bearer <token>.');
    return { jwt: { claims: gatewayClaims(await verify(token)) } };
  };
}

/**
 * The AG-UI function's authentication from its environment, failing closed: JWTs of the issuer when
 * the stack has built-in `auth`; nobody (every caller anonymous) only when the stack says
 * `allowAnonymous` explicitly; with neither, the function refuses to start rather than serve every
 * caller as anonymous by accident.
 */
export function aguiAuthenticationFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): AguiAuthenticate | undefined {
  if (env[AUTH_ENV.issuer]) return jwtAuthentication(verifierFromEnv());
  if (env[AUTH_ENV.anonymous] === 'true') return undefined;
  throw new Error(
    `The AG-UI function needs ${AUTH_ENV.issuer} (built-in auth) or ${AUTH_ENV.anonymous}=true (allowAnonymous); it has neither.`,
  );
}

/** Options of {@link createAguiHandler}. */
export interface AguiHandlerOptions {
  /** Who the caller is; without it every caller is the anonymous user. */
  authenticate?: AguiAuthenticate;
  /** How often the log is read while a run is quiet. Default 250 ms, as the HTTP API's long poll. */
  pollMs?: number;
  /** Stops the stream this long before the function's timeout, so it ends cleanly. Default 5 000. */
  marginMs?: number;
}

/** The AG-UI endpoint: an event in, a streamed answer written to the sink. */
export type AguiHandler = (
  event: APIGatewayProxyEventV2,
  sink: ResponseSink,
  context: Context,
) => Promise<void>;

/** The agent a path names: `/` is the session's (or the only one), `/{agentId}` that agent. */
function agentOf(path: string): string | undefined {
  const name = path.replace(/^\/+|\/+$/g, '');
  if (name === '') return undefined;
  if (!/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(name))
    throw new NotFoundError('route_not_found', `No AG-UI agent at ${path.slice(0, 140)}.`);
  return name;
}

/**
 * The AG-UI endpoint's handler: it authenticates the caller, takes AG-UI's `RunAgentInput`, applies
 * it once (a message, a frontend tool's result or the answers to interrupts) and streams the run as
 * AG-UI events, as server-sent events. A request it refuses is answered with the status and the
 * `{ error: { code, message, issues } }` body of every other route, before any event.
 *
 * @example
 * ```ts
 * const agui = createAguiHandler(app, runtime, { authenticate: jwtAuthentication(verifierFromEnv()) });
 * await agui(event, sink, context);
 * ```
 */
export function createAguiHandler(
  app: Switchboard,
  runtime?: Runtime,
  options: AguiHandlerOptions = {},
): AguiHandler {
  const rt = lazyRuntime('agui', runtime);
  const pollMs = options.pollMs ?? 250;
  const marginMs = options.marginMs ?? 5_000;
  const serve = async (event: Parameters<AguiHandler>[0], sink: ResponseSink, context: Context) => {
    let accepted: Followed;
    let translator: AguiTranslator;
    try {
      await jsonSchemasReady();
      if (event.requestContext.http.method !== 'POST')
        throw new NotFoundError(
          'route_not_found',
          `No route ${event.requestContext.http.method} ${event.rawPath}: AG-UI runs are POSTed.`,
        );
      const agentId = agentOf(event.rawPath);
      const identity = await identify(rt(), await options.authenticate?.(event), app.resolveContext);
      await limitUser(rt(), identity);
      const body = parseJsonBody(event.body, event.isBase64Encoded, { what: 'RunAgentInput' });
      const { input, followed } = await acceptRun(rt(), app, identity, body, agentId);
      accepted = followed;
      translator = new AguiTranslator(input.threadId, input.runId, clientKnows(input));
    } catch (error) {
      const response = errorResponse(error, rt().logger, { maskServerErrors: app.maskServerErrors });
      const headers = Object.fromEntries(
        Object.entries(response.headers ?? {}).map(([k, v]) => [k, String(v)]),
      );
      sink.start(response.statusCode ?? 500, headers);
      sink.write(response.body ?? '');
      sink.end();
      return;
    }
    sink.start(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    try {
      await followRun(rt(), accepted, translator, sink, {
        pollMs,
        deadline: rt().clock() + context.getRemainingTimeInMillis() - marginMs,
      });
    } catch (error) {
      // The run goes on in the worker; the stream cannot. The client posts the same run again.
      rt().logger.error('AG-UI stream failed', { error: error as Error });
      if (!sink.closed)
        sink.write(
          `data: ${JSON.stringify({ type: 'RUN_ERROR', code: 'stream_failed', message: 'The stream failed; post the same run again to go on.' })}\n\n`,
        );
    }
    sink.end();
  };
  // The telemetry of every handler: ids on each log line, a subsegment, metrics published at the end.
  const instrumented = instrumentHandler(
    rt,
    ({ event, sink }: { event: Parameters<AguiHandler>[0]; sink: ResponseSink }, context: Context) =>
      serve(event, sink, context),
  );
  return (event, sink, context) => instrumented({ event, sink }, context);
}
