import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import {
  AUTH_ENV,
  type AuthorizerShape,
  bearerToken,
  gatewayClaims,
  type JwtVerifier,
  verifierFromEnv,
} from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { parseJsonBody } from '../contract/index.ts';
import { NotFoundError, UnauthorizedError } from '../errors/index.ts';
import {
  callerOf,
  errors,
  identify,
  type Middleware,
  type Piped,
  pipeline,
  rateLimit,
  schemas,
  telemetry,
} from '../handlers/middleware/index.ts';
import { lazyRuntime } from '../handlers/runtime.ts';
import { SpanKind } from '../telemetry/index.ts';
import { errorResponse } from '../transport/index.ts';
import { acceptRun } from './accept.ts';
import { followRun, sseOf } from './follow.ts';
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

/** An AG-UI request as the pipeline carries it: the event, and the sink its answer goes to. */
type AguiRequest = APIGatewayProxyEventV2 & { sink: ResponseSink };

/** `route`: AG-UI runs are POSTed, to `/` or an agent's path; anything else is a 404 before the caller is asked. */
const route: Middleware<AguiRequest> = {
  name: 'route',
  before({ event }) {
    if (event.requestContext.http.method !== 'POST')
      throw new NotFoundError(
        'route_not_found',
        `No route ${event.requestContext.http.method} ${event.rawPath}: AG-UI runs are POSTed.`,
      );
    agentOf(event.rawPath);
  },
};

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
): AguiHandler & Piped {
  const rt = lazyRuntime('agui', runtime);
  const pollMs = options.pollMs ?? 250;
  const marginMs = options.marginMs ?? 5_000;
  const handler = pipeline<AguiRequest, null>(
    [
      telemetry(rt, undefined, () => ({ name: 'POST /agui', kind: SpanKind.SERVER })),
      // A refused request is answered before any event, as every other route answers it.
      errors((error, { sink }) => {
        const response = errorResponse(error, rt().logger, { maskServerErrors: app.maskServerErrors });
        const headers = Object.fromEntries(
          Object.entries(response.headers ?? {}).map(([k, v]) => [k, String(v)]),
        );
        sink.start(response.statusCode ?? 500, headers);
        sink.write(response.body ?? '');
        sink.end();
        return null;
      }),
      schemas,
      route,
      identify(rt, app, (event) => options.authenticate?.(event)),
      rateLimit(rt),
    ],
    async (event, context) => {
      const { sink } = event;
      const body = parseJsonBody(event.body, event.isBase64Encoded, { what: 'RunAgentInput' });
      const { input, followed, answered } = await acceptRun(
        rt(),
        app,
        callerOf(context),
        body,
        agentOf(event.rawPath),
      );
      const translator = new AguiTranslator(input.threadId, input.runId, clientKnows(input));
      sink.start(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      // A reviewer is shown her answers' outcome, as HTTP answers her: no run of the owner's is followed.
      if (answered) {
        for (const shown of translator.answeredOnly(answered)) if (!sink.closed) sink.write(sseOf(shown));
        sink.end();
        return null;
      }
      try {
        await followRun(rt(), followed, translator, sink, {
          pollMs,
          deadline: rt().clock() + context.getRemainingTimeInMillis() - marginMs,
        });
      } catch (error) {
        // The run goes on in the worker; the stream cannot. The client posts the same run again.
        rt().logger.error('AG-UI stream failed', { error: error as Error });
        const end = translator.interrupted(
          'stream_failed',
          'The stream failed; post the same run again to go on.',
        );
        for (const event of end) if (!sink.closed) sink.write(sseOf(event));
      }
      sink.end();
      return null;
    },
    // The stream keeps its own margin before the function's timeout (marginMs).
    { timeoutEarlyInMillis: 0 },
  );
  return Object.assign(
    (event: APIGatewayProxyEventV2, sink: ResponseSink, context: Context) =>
      handler({ ...event, sink }, context).then(() => {}),
    { pipeline: handler.pipeline },
  );
}
