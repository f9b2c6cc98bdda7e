import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import type { WebSocketResult } from './types.ts';

/** Answers an upgrade request with a plain HTTP status, which is what a refused `$connect` looks like to the client. */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  message = STATUS_CODES[status] ?? 'Error',
): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * An error frame in API Gateway's own wording and spacing, e.g.
 * `{"message": "Endpoint request timed out", "connectionId":"…", "requestId":"…"}`.
 */
export function gatewayFrame(message: string, connectionId: string, requestId: string): string {
  const [m, c, r] = [message, connectionId, requestId].map((v) => JSON.stringify(v));
  return `{"message": ${m}, "connectionId":${c}, "requestId":${r}}`;
}

/** A text frame's payload as a string. */
export function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** The body of a two-way route's response, if the integration gave one. */
export function routeResponse(result: WebSocketResult): string | undefined {
  if (typeof result === 'string') return result;
  return typeof result?.body === 'string' ? result.body : undefined;
}

/**
 * Route selection on `$request.body.<key>`: a JSON frame naming a known route goes there;
 * anything else, including a frame that is not JSON, goes to `$default`.
 */
export function createRouteSelector(routes: string[], key: string): (body: string) => string {
  const known = new Set(routes);
  return (body) => {
    try {
      const parsed: unknown = JSON.parse(body);
      const value = typeof parsed === 'object' && parsed !== null ? Reflect.get(parsed, key) : undefined;
      return typeof value === 'string' && known.has(value) ? value : '$default';
    } catch {
      return '$default';
    }
  };
}
