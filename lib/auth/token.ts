/**
 * The WebSocket subprotocol a host offers (and the `$connect` integration echoes): browsers cannot
 * set headers on a WebSocket, so a browser offers two subprotocols, this one and
 * {@link TOKEN_PROTOCOL_PREFIX}`<token>`.
 *
 * @example
 * ```js
 * new WebSocket(url, ['switchboard', `switchboard.bearer.${token}`]);
 * ```
 */
export const SWITCHBOARD_PROTOCOL = 'switchboard';

/** The subprotocol that carries a token: `switchboard.bearer.<JWT>` (a JWT is all subprotocol-safe characters). */
export const TOKEN_PROTOCOL_PREFIX = 'switchboard.bearer.';

type Headers = Readonly<Record<string, string | undefined>> | null | undefined;

/** A header by name, whatever its spelling (WebSocket events keep the client's). */
export function headerOf(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** The subprotocols a client offered, in its order. */
export function offeredProtocols(headers: Headers): string[] {
  return (headerOf(headers, 'sec-websocket-protocol') ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter(Boolean);
}

/** A bearer token from an `Authorization` value: the token alone, or after `Bearer `. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const token = authorization?.replace(/^Bearer\s+/i, '').trim();
  return token || undefined;
}

/** What a `$connect` request carries that may hold a token. */
export interface ConnectRequest {
  headers?: Headers;
  queryStringParameters?: Readonly<Record<string, string | undefined>> | null;
}

/**
 * The token of a `$connect` request, from the first place that has one: the `Authorization` header
 * (native clients), the `switchboard.bearer.<token>` subprotocol (browsers), the `token` query
 * parameter (browsers, clients that cannot offer subprotocols). Undefined when none has one.
 */
export function connectToken(request: ConnectRequest): string | undefined {
  const fromProtocol = offeredProtocols(request.headers)
    .find((protocol) => protocol.startsWith(TOKEN_PROTOCOL_PREFIX))
    ?.slice(TOKEN_PROTOCOL_PREFIX.length);
  return (
    bearerToken(headerOf(request.headers, 'authorization')) ||
    fromProtocol ||
    request.queryStringParameters?.token?.trim() ||
    undefined
  );
}
