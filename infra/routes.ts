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

/**
 * Where a host puts its token on `$connect`, as the built-in authentication's `webSocketTokenSource`
 * says: the subprotocol (`switchboard.bearer.<token>`), the query (`?token=`), or either.
 */
export type WebSocketTokenSource = 'subprotocol' | 'query' | 'either';

/**
 * The `$connect` authoriser's identity source for each {@link WebSocketTokenSource}, in the form AWS
 * documents for a WebSocket API's REQUEST authoriser (`route.request.header.<name>`,
 * `route.request.querystring.<name>`). API Gateway answers 401 without calling the authoriser when any
 * named source is missing or empty, and has no "one of" form: `either` names the handshake's
 * `Sec-WebSocket-Key`, which every WebSocket client must send (RFC 6455), so neither place is refused
 * before the function looks for a token (and answers 401 itself when there is none). The sandbox's
 * gateway applies the same rule.
 */
export const WEBSOCKET_IDENTITY_SOURCES: Readonly<Record<WebSocketTokenSource, readonly string[]>> = {
  subprotocol: ['route.request.header.Sec-WebSocket-Protocol'],
  query: ['route.request.querystring.token'],
  either: ['route.request.header.Sec-WebSocket-Key'],
};
