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
  init?: { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignalLike },
) => Promise<FetchResponse>;

/**
 * An `AbortSignal` (browsers, Node, React Native), as far as the client uses it: a request given one
 * ends when it aborts.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * const page = client.request('GET', '/api/sessions', undefined, { signal: stop.signal });
 * stop.abort();
 * ```
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

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

/**
 * Resolves after `ms`, or at once when `signal` aborts (its timer then cleared, so that nothing is
 * left scheduled).
 */
export function delay(timers: Timers, ms: number, signal?: AbortSignalLike): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      timers.clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const handle = timers.setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

/** The error an aborted request rejects with, as `fetch`'s (named `AbortError`). */
export function abortError(): Error {
  return Object.assign(new Error('The request was aborted.'), { name: 'AbortError' });
}

/** A new `AbortController`, or undefined on a platform without one (requests then run to their end). */
export function abortController(): { signal: AbortSignalLike; abort(): void } | undefined {
  const Controller = (
    globalThis as { AbortController?: new () => { signal: AbortSignalLike; abort(): void } }
  ).AbortController;
  return Controller ? new Controller() : undefined;
}

/** WebSocket.OPEN on every platform. */
export const OPEN = 1;
