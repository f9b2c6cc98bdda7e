import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { AuthorizerShape } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { NotFoundError } from '../errors/index.ts';
import { SpanKind } from '../telemetry/index.ts';
import { errorResponse } from '../transport/index.ts';
import { HTTP_ROUTE_TABLE, type HttpRoute } from './http-routes.ts';
import {
  authorizerClaims,
  callerOf,
  errors,
  identify,
  type Middleware,
  pipeline,
  rateLimit,
  schemas,
  telemetry,
} from './middleware/index.ts';
import { lazyRuntime } from './runtime.ts';

function matchTemplate(template: string, method: string, path: string): Record<string, string> | undefined {
  const [routeMethod, routePath = ''] = template.split(' ');
  if (routeMethod !== method) return undefined;
  const want = routePath.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 1) {
    const w = want[i] ?? '';
    const h = have[i] ?? '';
    if (w.startsWith('{') && w.endsWith('}')) {
      if (h === '') return undefined;
      params[w.slice(1, -1)] = h;
    } else if (w !== h) return undefined;
  }
  return params;
}

/**
 * The event a route runs on: its path parameters filled in (behind `$default`), and the route; and
 * the claims of the authoriser API Gateway ran, which `APIGatewayProxyEventV2` does not name.
 */
type Routed = APIGatewayProxyEventV2 & {
  route?: HttpRoute;
  requestContext: { authorizer?: AuthorizerShape };
};

/** `route`: the route of the event, or `404 route_not_found` before anything about the caller is asked. */
const route: Middleware<Routed> = {
  name: 'route',
  before(request) {
    const { event } = request;
    // By its route key, or (behind a `$default` route) by method and path.
    let route = HTTP_ROUTE_TABLE.find((r) => r.key === (event.routeKey as string));
    let params: Record<string, string> | undefined;
    for (const r of route ? [] : HTTP_ROUTE_TABLE) {
      params = matchTemplate(r.key, event.requestContext.http.method, event.rawPath);
      if (params) {
        route = r;
        break;
      }
    }
    if (!route)
      throw new NotFoundError(
        'route_not_found',
        `No route ${event.requestContext.http.method} ${event.rawPath}.`,
      );
    request.event = { ...event, pathParameters: { ...event.pathParameters, ...params }, route };
  },
};

/** The route `route` found for the event; one that did not pass `route` has none, and is a 404. */
function routeOf(event: Routed): HttpRoute {
  if (!event.route) throw new NotFoundError('route_not_found', `No route ${event.rawPath}.`);
  return event.route;
}

/**
 * The HTTP API's Lambda handler: finds the route, counts the request against the caller's rate
 * limit, runs the route, and maps every error to a JSON response with a stable code. No input
 * produces a stack trace.
 */
export function createHttpHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('http', runtime);
  return pipeline<Routed, APIGatewayProxyStructuredResultV2>(
    [
      // The request's span, `POST /api/chat`, continues a host's trace when it sends a `traceparent`.
      telemetry(rt, undefined, (event) => ({
        name:
          event.routeKey && event.routeKey !== '$default'
            ? event.routeKey
            : `${event.requestContext?.http?.method} ${event.rawPath}`,
        kind: SpanKind.SERVER,
        carrier: { traceparent: event.headers?.traceparent },
      })),
      errors((error) => errorResponse(error, rt().logger, { maskServerErrors: app.maskServerErrors })),
      schemas,
      route,
      identify(rt, app, authorizerClaims),
      rateLimit(rt),
    ],
    async (event, context) => routeOf(event).run(rt(), app, event, callerOf(context)),
  );
}
