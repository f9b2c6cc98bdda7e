import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { jsonSchemasReady } from '../contract/index.ts';
import { NotFoundError } from '../errors/index.ts';
import { limitUser } from '../limits/index.ts';
import { instrumentHandler } from '../telemetry/index.ts';
import { errorResponse } from '../transport/index.ts';
import { HTTP_ROUTE_TABLE, type HttpRoute, identity } from './http-routes.ts';
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

/** The route for an event: by its route key, or (behind a `$default` route) by method and path. */
function findRoute(
  event: APIGatewayProxyEventV2,
): { route: HttpRoute; params?: Record<string, string> } | undefined {
  const byKey = HTTP_ROUTE_TABLE.find((r) => r.key === (event.routeKey as string));
  if (byKey) return { route: byKey };
  for (const route of HTTP_ROUTE_TABLE) {
    const params = matchTemplate(route.key, event.requestContext.http.method, event.rawPath);
    if (params) return { route, params };
  }
  return undefined;
}

/**
 * The HTTP API's Lambda handler: finds the route, counts the request against the caller's rate
 * limit, runs the route, and maps every error to a JSON response with a stable code. No input
 * produces a stack trace.
 */
export function createHttpHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('http', runtime);
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .handler(async (event) => {
      await jsonSchemasReady();
      const found = findRoute(event);
      if (!found)
        throw new NotFoundError(
          'route_not_found',
          `No route ${event.requestContext.http.method} ${event.rawPath}.`,
        );
      // Counted before the route reads anything: a refused request stores nothing.
      // The caller as the route will see them: the server's own resolveContext, asked once.
      await limitUser(rt(), await identity(rt(), app, event));
      const routed = found.params
        ? { ...event, pathParameters: { ...event.pathParameters, ...found.params } }
        : event;
      return found.route.run(rt(), app, routed);
    })
    .onError(async (request) => {
      request.response = errorResponse(request.error, rt().logger, {
        maskServerErrors: app.maskServerErrors,
      });
    });
  return instrumentHandler(rt, handler);
}
