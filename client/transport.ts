/**
 * The WebSocket a client opens: the browser's, Node 22's global one, React Native's, or the `ws`
 * package's (Node 20). Only what the client uses is named, so each of them fits.
 *
 * @example
 * ```ts
 * import WebSocket from 'ws';
 * const client = createClient({ url, wsUrl, token, WebSocket }); // Node 20
 * ```
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code?: number }> | null;
  onerror: Handler<unknown> | null;
}

/** A handler whose parameter is checked both ways, so that each platform's event type fits. */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/**
 * A WebSocket constructor (`new WebSocket(url, protocols)`).
 *
 * @example
 * ```ts
 * const WS: WebSocketConstructor = globalThis.WebSocket;
 * ```
 */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/**
 * What the client reads of a `fetch` response.
 *
 * @example
 * ```ts
 * const res: FetchResponse = await fetch(url);
 * ```
 */
export interface FetchResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/**
 * A `fetch` function: the platform's (browsers, Node 18+, React Native) unless one is given.
 *
 * @example
 * ```ts
 * const client = createClient({ url, token, fetch: (input, init) => fetch(input, { ...init, keepalive: true }) });
 * ```
 */
export type FetchLike = (
  input: string,
  init?: { method?: string; headers?: Record<string, string>; body?: unknown },
) => Promise<FetchResponse>;

/**
 * Timers the client schedules its reconnects, heartbeats and gap reads with (the platform's by
 * default). Tests and apps with their own scheduler may pass theirs.
 *
 * @example
 * ```ts
 * const timers: Timers = { setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as never) };
 * ```
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** WebSocket.OPEN on every platform. */
export const OPEN = 1;
