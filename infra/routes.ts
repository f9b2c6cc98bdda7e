import type { HttpRouteKey } from '../lib/contract/index.ts';

/**
 * The API Gateway routes Switchboard exposes, re-exported from the contract so the CDK construct, the
 * local sandbox gateway and the handlers read one list. Kept free of aws-cdk-lib imports on purpose:
 * the sandbox imports this file at run time and must not load the CDK.
 *
 * @example
 * ```ts
 * import { HTTP_ROUTES, splitHttpRoute } from './routes.ts';
 * for (const route of HTTP_ROUTES) console.log(splitHttpRoute(route).path);
 * ```
 */
export {
  HTTP_ROUTES,
  type HttpRouteKey,
  WEBSOCKET_ROUTES,
  type WebSocketRouteKey,
} from '../lib/contract/index.ts';

/** The routes every WebSocket API has besides the action routes of `WEBSOCKET_ROUTES`. */
export const WEBSOCKET_SPECIAL_ROUTES = ['$connect', '$disconnect', '$default'] as const;

/** The HTTP methods that may appear in an HTTP route key. */
export type HttpRouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Splits a route key into its method and path template.
 *
 * @example
 * ```ts
 * splitHttpRoute('GET /api/sessions/{id}'); // { method: 'GET', path: '/api/sessions/{id}' }
 * ```
 */
export function splitHttpRoute(route: HttpRouteKey): { method: HttpRouteMethod; path: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space) as HttpRouteMethod, path: route.slice(space + 1) };
}
