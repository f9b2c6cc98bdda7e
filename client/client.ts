import type * as z from 'zod';
import type {
  AttachmentSchema,
  FeedbackRequest,
  HostContextSchema,
  OnBusy,
  OutputMode,
  PendingAction,
  RememberedTools,
  ResolveRequest,
  SessionList,
} from '../lib/contract/index.ts';
import type { AgentList as ServerAgentList } from '../lib/documents/responses.ts';
import type { ErrorCode } from '../lib/errors/codes.ts';
import type { Accepted as ServerAccepted } from '../lib/runs/index.ts';
import { SwitchboardApiError } from './errors.ts';
import type { ErrorFrame, EventsFrame, JoinedFrame, ServerFrame, SwitchboardEvent } from './events.ts';
import { Session, type SessionOptions } from './session.ts';
import {
  type AbortSignalLike,
  abortError,
  delay,
  type FetchLike,
  OPEN,
  type Timers,
  type WebSocketConstructor,
  type WebSocketLike,
} from './transport.ts';

/**
 * An attachment as a host sends it (`kind` defaults to `image`, `purpose` to `reference`; exactly one
 * of `data_uri`, `url`, `text`, `file_id`): the server's own schema's input type.
 *
 * @example
 * ```ts
 * const note: AttachmentInput = { kind: 'text', text: 'Order 42 was late.' };
 * ```
 */
export type AttachmentInput = z.input<typeof AttachmentSchema>;

/**
 * `host_context` as a host sends it (docs/host-contract.md): the server's own schema's input type.
 *
 * @example
 * ```ts
 * const ctx: HostContextInput = { view: { name: 'orders' }, actions: [{ name: 'select_order', parameters: { type: 'object' } }] };
 * ```
 */
export type HostContextInput = z.input<typeof HostContextSchema>;

/**
 * A file's record (`POST /api/files`, `GET /api/files/{id}`).
 *
 * @example
 * ```ts
 * const file: FileRecord = await client.upload(blob, { name: 'notes.txt' });
 * await session.send('Summarise this', { files: [file] });
 * ```
 */
export interface FileRecord {
  id: string;
  name: string;
  media_type: string;
  size: number;
  status: 'stored' | 'pending' | string;
  created_at?: string;
  expires_at?: string | null;
  upload?: { method: string; url: string; headers: Record<string, string>; expires_at: string };
}

/**
 * What an upload may be: a `Blob`/`File` (browsers, React Native), bytes, or text.
 *
 * @example
 * ```ts
 * const body: UploadBody = new TextEncoder().encode('hello');
 * ```
 */
export type UploadBody =
  | string
  | ArrayBuffer
  | Uint8Array
  | { size: number; type?: string; name?: string; arrayBuffer(): Promise<ArrayBuffer> };

/** Web Crypto's digest, as far as the client uses it (browsers, Node 20+, Deno, Bun). */
interface SubtleDigest {
  digest(algorithm: 'SHA-256', data: ArrayBuffer | Uint8Array): Promise<ArrayBuffer>;
}

/** The base64 of the bytes' SHA-256, which an upload URL signs (`sha256` of `POST /api/files`). */
async function sha256Of(body: UploadBody): Promise<string> {
  const subtle = (globalThis as { crypto?: { subtle?: SubtleDigest } }).crypto?.subtle;
  if (!subtle)
    throw new Error('This platform has no Web Crypto to hash the file: pass upload(body, { sha256 }).');
  const bytes =
    typeof body === 'string'
      ? new TextEncoder().encode(body)
      : body instanceof ArrayBuffer || body instanceof Uint8Array
        ? body
        : await body.arrayBuffer();
  let binary = '';
  for (const byte of new Uint8Array(await subtle.digest('SHA-256', bytes)))
    binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * A host action handler: performs a host tool call the agent made (`final_response.pending_tool_call`)
 * and returns its result (any JSON), which the client sends as the continuation. A handler that
 * throws sends `tool_outcome: "failed"` with the error's message as `tool_result`.
 *
 * @example
 * ```ts
 * const selectIssue: HostActionHandler = async (args) => {
 *   store.select((args as { number: number }).number);
 *   return { selected: true };
 * };
 * ```
 */
export type HostActionHandler = (
  args: unknown,
  context: { session: Session; callId: string; toolName: string },
) => unknown;

/**
 * Host action handlers by tool name.
 *
 * @example
 * ```ts
 * const hostActions: HostActionHandlers = { select_issue: async ({ number }) => ui.select(number) };
 * ```
 */
export type HostActionHandlers = Record<string, HostActionHandler>;

/**
 * A client tool handler: answers a `client_tool` request the agent made (an `action.required` event
 * whose action has `type: "client_tool"`), with `toolName`, `args` and the request itself. What it
 * returns is sent as the request's `output`; a handler that throws sends its message as `error`.
 *
 * @example
 * ```ts
 * const localTime: ClientToolHandler = () => ({ time: new Date().toLocaleTimeString() });
 * ```
 */
export type ClientToolHandler = (
  args: unknown,
  context: { session: Session; actionId: string; toolName: string; action: PendingAction },
) => unknown;

/**
 * Client tool handlers by tool name.
 *
 * @example
 * ```ts
 * const clientTools: ClientToolHandlers = { read_clipboard: () => navigator.clipboard.readText() };
 * ```
 */
export type ClientToolHandlers = Record<string, ClientToolHandler>;

/**
 * Options of {@link createClient}. Durations are in milliseconds.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { url: 'https://api.example.com', wsUrl: 'wss://ws.example.com/prod', token: getToken };
 * ```
 */
export interface ClientOptions {
  /** The HTTP API's base URL: its routes are `${url}/api/…` (the sandbox: `http://127.0.0.1:3000`). */
  url: string;
  /** The WebSocket API's URL (the sandbox: `ws://127.0.0.1:3000/ws`). Without it, events are read over HTTP. */
  wsUrl?: string;
  /** The caller's JWT, or a function that returns a current one (called for each request and connection). */
  token?: string | (() => string | Promise<string>);
  /** The WebSocket constructor; `globalThis.WebSocket` by default. Events are read over HTTP when there is none. */
  WebSocket?: WebSocketConstructor;
  /** The `fetch` function; `globalThis.fetch` by default. */
  fetch?: FetchLike;
  /** `websocket` (the default when a WebSocket and `wsUrl` exist) or `http` (long polls of the event log). */
  transport?: 'websocket' | 'http';
  /** Host action handlers, by tool name, for every session of this client (a session may add its own). */
  hostActions?: HostActionHandlers;
  /** Client tool handlers, by tool name, for every session of this client (a session may add its own). */
  clientTools?: ClientToolHandlers;
  /** Reconnect backoff: the first delay (500), the ceiling (30 000), the factor (2), the jitter fraction (0.5). */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number; factor?: number; jitter?: number };
  /**
   * Sending again what API Gateway refused before any function ran (its throttling: HTTP
   * `429 {"message":"Too Many Requests"}`, a WebSocket frame `{"message": "Too Many Requests", …}`;
   * the sandbox answers the same when its pool is full): the request unchanged (a message keeps its
   * request id, which the server applies once), a join again. `attempts` in all (6), the first delay
   * (250), the ceiling (8 000), doubling, with the reconnect's jitter. A `429 rate_limited` from
   * Switchboard itself is not sent again: it says how long to wait, which is the app's to decide.
   */
  retry?: { attempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  /** A heartbeat every this often (300 000: under API Gateway's 10-minute idle limit). 0 turns it off. */
  heartbeatMs?: number;
  /** A planned reconnect after this long (6 600 000, 110 minutes: before API Gateway's 2-hour limit). 0: never. */
  maxConnectionMs?: number;
  /** How long a gap in the seqs may stay open before it is read over HTTP (2 000). */
  gapTimeoutMs?: number;
  /** After `resume()`, how long the socket has to answer before it is replaced (5 000). */
  resumeTimeoutMs?: number;
  /** The long poll's `wait`, in seconds, for the HTTP transport (20). */
  pollWaitSeconds?: number;
  /** Timers; the platform's by default. */
  timers?: Timers;
  /** A number in [0, 1) for the jitter; `Math.random` by default. */
  random?: () => number;
}

/**
 * The connection's state, as {@link SwitchboardClient.onStatus} reports it.
 *
 * @example
 * ```ts
 * client.onStatus((status: ConnectionStatus) => banner.show(status === 'reconnecting'));
 * ```
 */
export type ConnectionStatus = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

/**
 * The answer to a message (`202` of `POST /api/chat`): the server's own type.
 *
 * @example
 * ```ts
 * const accepted: Accepted = await session.send('hello');
 * await session.waitForTurn(accepted.run_id);
 * ```
 */
export type Accepted = ServerAccepted;

/**
 * The agents the caller may talk to (`GET /api/agents`): the server's own type.
 *
 * @example
 * ```ts
 * const { agents, default_agent_id }: AgentList = await client.agents();
 * ```
 */
export type AgentList = ServerAgentList;

/**
 * A page of the caller's sessions (`GET /api/sessions`): the server's own type.
 *
 * @example
 * ```ts
 * const { sessions }: SessionList = await client.sessions();
 * ```
 */
export type { SessionList, SessionSummary } from '../lib/contract/index.ts';

/**
 * A page of the event log (`GET /api/sessions/{id}/events`).
 *
 * @example
 * ```ts
 * const page: EventsPage = await session.readEvents({ after: 0 });
 * ```
 */
export interface EventsPage {
  session_id: string;
  events: SwitchboardEvent[];
  last_seq: number;
  has_more: boolean;
}

/** Options of {@link Session.send}. */
export interface SendOptions {
  /** The request id; one is made up when absent (sending the same id again is applied once). */
  id?: string;
  /** The agent, for a new session (unless exactly one is registered). */
  agentId?: string;
  /** What the host shows and can do; stored on the session and reused by later messages. */
  hostContext?: HostContextInput;
  attachments?: AttachmentInput[];
  /** Uploaded files (their records, or their ids), attached by `file_id` (a record with its name and type). */
  files?: (string | (Pick<FileRecord, 'id' | 'media_type'> & Partial<Pick<FileRecord, 'name'>>))[];
  metadata?: Record<string, unknown>;
  /** What the message does while a turn runs (`enqueue` by default). */
  onBusy?: OnBusy;
  steer?: boolean;
  outputMode?: OutputMode;
}

/**
 * A file's attachment, its kind picked from its media type. Given its record, it carries the file's name and type too, so that the stored
 * message shows what was attached (`GET …/messages`) without a lookup of each file.
 */
const fileAttachment = (
  file: string | (Pick<FileRecord, 'id' | 'media_type'> & Partial<Pick<FileRecord, 'name'>>),
): AttachmentInput =>
  typeof file === 'string'
    ? { kind: 'document', file_id: file }
    : {
        kind: file.media_type.startsWith('image/') ? 'image' : 'document',
        file_id: file.id,
        ...(file.name !== undefined && { name: file.name }),
        media_type: file.media_type,
      };

/** A request id: 1–128 printable ASCII characters, unique enough without `crypto` (React Native has none). */
export const requestId = (random: () => number = Math.random): string =>
  `req_${Date.now().toString(36)}_${Math.floor(random() * 2 ** 48).toString(36)}`;

/** The body of `POST /api/chat` for {@link SendOptions}. */
export function chatBody(sessionId: string, content: string, options: SendOptions, random?: () => number) {
  const attachments = [...(options.attachments ?? []), ...(options.files ?? []).map(fileAttachment)];
  return {
    id: options.id ?? requestId(random),
    session_id: sessionId,
    content,
    ...(options.agentId !== undefined && { agent_id: options.agentId }),
    ...(options.hostContext !== undefined && { host_context: options.hostContext }),
    ...(attachments.length > 0 && { attachments }),
    ...(options.metadata !== undefined && { metadata: options.metadata }),
    ...(options.onBusy !== undefined && { on_busy: options.onBusy }),
    ...(options.steer !== undefined && { steer: options.steer }),
    ...(options.outputMode !== undefined && { output_mode: options.outputMode }),
  };
}

export type { FeedbackRequest, PendingAction, RememberedTools, ResolveRequest };

/**
 * The WebSocket subprotocols: Switchboard's, and the one that carries the token (a browser cannot set
 * headers on a WebSocket). The server's twins are in lib/auth/token.ts; a test keeps them equal.
 */
export const PROTOCOL = 'switchboard';
export const TOKEN_PROTOCOL = 'switchboard.bearer.';

/**
 * The largest body `POST /api/files` takes as bytes (the server's DIRECT_UPLOAD_MAX_BYTES, kept equal
 * by a test); anything larger goes through an upload URL.
 */
export const MAX_BODY_UPLOAD = 4 * 1024 * 1024;

/**
 * A connection to Switchboard for one caller: the HTTP API, one WebSocket shared by every session it
 * follows, and the reconnect, heartbeat and resume logic around it. Make one with {@link createClient}.
 *
 * @example
 * ```ts
 * const client = createClient({ url: 'http://127.0.0.1:3000', wsUrl: 'ws://127.0.0.1:3000/ws', token });
 * const session = client.session('support-42', { agentId: 'demo' });
 * session.on('agent.message.delta', (e) => render(e.data.message_id, e.data.text));
 * await session.send('Where is my order?');
 * ```
 */
export class SwitchboardClient {
  readonly options: Readonly<ClientOptions>;
  readonly timers: Timers;
  readonly random: () => number;
  readonly #fetch: FetchLike;
  readonly #WebSocket: WebSocketConstructor | undefined;
  readonly #sessions = new Map<string, Session>();
  readonly #statusListeners = new Set<(status: ConnectionStatus) => void>();
  readonly #frameListeners = new Set<(frame: ServerFrame) => void>();
  readonly #errorListeners = new Set<(error: unknown) => void>();
  #socket: WebSocketLike | undefined;
  #attempt = 0;
  #reconnectTimer: unknown;
  #heartbeatTimer: unknown;
  #lifetimeTimer: unknown;
  #resumeTimer: unknown;
  #rejoinTimer: unknown;
  /** Joins refused by throttling since the last one answered: the next rejoin waits longer. */
  #throttledJoins = 0;
  /** Counts frames received: a heartbeat that sees no new frame within `resumeTimeoutMs` finds the socket dead. */
  #framesReceived = 0;
  #status: ConnectionStatus = 'idle';
  /** Set while a socket is being made (its token fetched): no second one is started meanwhile. */
  #opening = false;
  #closed = false;

  constructor(options: ClientOptions) {
    this.options = options;
    this.timers = options.timers ?? {
      setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
      clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
    };
    this.random = options.random ?? Math.random;
    const platformFetch = (globalThis as { fetch?: FetchLike }).fetch;
    const fetchImpl = options.fetch ?? (platformFetch && ((input, init) => platformFetch(input, init)));
    if (!fetchImpl) throw new Error('createClient: no fetch on this platform; pass options.fetch.');
    this.#fetch = fetchImpl;
    this.#WebSocket =
      options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? undefined;
  }

  /**
   * How this client reads events: `websocket` when it has a WebSocket and a `wsUrl` (and was not told
   * `transport: 'http'`), else `http` (long polls of the event log).
   *
   * @example
   * ```ts
   * if (client.transport === 'http') console.info('no WebSocket here: long-polling the log');
   * ```
   */
  get transport(): 'websocket' | 'http' {
    if (this.options.transport === 'http' || !this.#WebSocket || !this.options.wsUrl) return 'http';
    return 'websocket';
  }

  /**
   * The connection's state.
   *
   * @example
   * ```ts
   * if (client.status !== 'open') client.resume();
   * ```
   */
  get status(): ConnectionStatus {
    return this.#status;
  }

  /**
   * The session `id` (the host's own id; created on its first message), followed from now on: its
   * events are delivered in seq order, each once. The same id returns the same object.
   *
   * @example
   * ```ts
   * const session = client.session('support-42', { agentId: 'demo', afterSeq: savedSeq });
   * ```
   */
  session(id: string, options: SessionOptions = {}): Session {
    let session = this.#sessions.get(id);
    if (!session) {
      session = new Session(this, id, options);
      this.#sessions.set(id, session);
      if (this.transport === 'websocket') {
        if (this.#socket?.readyState === OPEN) this.#join(session, true);
        else this.connect();
      } else session.startPolling();
    }
    return session;
  }

  /** Forgets a session: called by {@link Session.close}. */
  forget(session: Session): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
  }

  /**
   * Opens the WebSocket now (sessions open it on their own when they need it). Does nothing when it is
   * open or opening, or when the client reads over HTTP.
   *
   * @example
   * ```ts
   * client.connect();
   * ```
   */
  connect(): void {
    if (
      this.#closed ||
      this.transport !== 'websocket' ||
      this.#socket ||
      this.#reconnectTimer ||
      this.#opening
    )
      return;
    void this.#open();
  }

  /**
   * For an app that returns from the background (or sees the network come back): reconnects at once
   * when the socket is gone, skipping any backoff; else checks it with a heartbeat, and replaces it when
   * no frame answers within `resumeTimeoutMs`. Either way each session rejoins from its last applied seq.
   *
   * @example
   * ```ts
   * document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && client.resume());
   * AppState.addEventListener('change', (state) => state === 'active' && client.resume()); // React Native
   * ```
   */
  resume(): void {
    if (this.#closed) return;
    if (this.transport === 'http') {
      for (const session of this.#sessions.values()) session.startPolling();
      return;
    }
    if (!this.#socket || this.#socket.readyState !== OPEN) {
      this.#clear('reconnect');
      this.#attempt = 0;
      if (!this.#socket) void this.#open();
      else this.#replace();
      return;
    }
    this.#heartbeat();
  }

  /**
   * Ends everything the client started, whichever transport it used: the socket, every timer, and
   * each session (its long poll and any other read of the log in flight are aborted). Commands
   * already sent still get their answer. Nothing of the client keeps a Node process alive after it.
   *
   * @example
   * ```ts
   * window.addEventListener('pagehide', () => client.close());
   * ```
   */
  close(): void {
    this.#closed = true;
    for (const timer of ['reconnect', 'heartbeat', 'lifetime', 'resume', 'rejoin'] as const)
      this.#clear(timer);
    for (const session of [...this.#sessions.values()]) session.close();
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(1000, 'client closed');
    this.#setStatus('closed');
  }

  /**
   * Whether {@link close} was called.
   *
   * @example
   * ```ts
   * if (!client.closed) client.resume();
   * ```
   */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Listens to the connection's state; returns the function that stops listening.
   *
   * @example
   * ```ts
   * const stop = client.onStatus((s) => (statusEl.textContent = s));
   * ```
   */
  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /**
   * Listens to every frame the server sends (events frames included), as parsed; for diagnostics.
   *
   * @example
   * ```ts
   * client.onFrame((frame) => console.debug(frame.type));
   * ```
   */
  onFrame(listener: (frame: ServerFrame) => void): () => void {
    this.#frameListeners.add(listener);
    return () => this.#frameListeners.delete(listener);
  }

  /**
   * Listens to errors nobody awaits: an `assistant:error` frame, a failed gap read or poll, a host
   * action's continuation that was refused.
   *
   * @example
   * ```ts
   * client.onError((error) => reportToSentry(error));
   * ```
   */
  onError(listener: (error: unknown) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  /** Reports an error to {@link onError}'s listeners. */
  reportError(error: unknown): void {
    for (const listener of this.#errorListeners) listener(error);
  }

  /**
   * A request to the HTTP API, authorised with the token; the answer's JSON, or a
   * {@link SwitchboardApiError} for any status from 400. With `signal`, the request ends (rejected
   * with an `AbortError`) when the signal aborts.
   *
   * @example
   * ```ts
   * const sessions = await client.request<{ sessions: unknown[] }>('GET', '/api/sessions?limit=10');
   * ```
   */
  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    options: { contentType?: string; raw?: boolean; signal?: AbortSignalLike } = {},
  ): Promise<T> {
    const attempts = Math.max(1, this.options.retry?.attempts ?? 6);
    const { signal } = options;
    for (let attempt = 1; ; attempt += 1) {
      const token = await this.token();
      const headers: Record<string, string> = {};
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
      const res = await this.#fetch(`${this.options.url.replace(/\/+$/, '')}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : options.raw ? body : JSON.stringify(body),
        ...(signal && { signal }),
      });
      const text = await res.text();
      // Refused before any function ran: nothing was done, so the same request may go again (unless
      // it was aborted meanwhile: the fetch that follows then fails at once).
      if (attempt < attempts && res.status === 429 && isThrottling(jsonOf(text))) {
        await delay(this.timers, this.#retryDelay(attempt), signal);
        if (signal?.aborted) throw abortError();
        continue;
      }
      return answerOf<T>(res, text);
    }
  }

  /**
   * The agents the caller may talk to (`GET /api/agents`): each one's id, and its name, description
   * and suggestions when it has them; `default_agent_id` is the one a message without an agent goes to.
   *
   * @example
   * ```ts
   * const { agents, default_agent_id } = await client.agents();
   * const agent = agents.find((a) => a.id === (picked ?? default_agent_id));
   * title.textContent = agent?.name ?? agent?.id ?? '';
   * ```
   */
  agents(): Promise<AgentList> {
    return this.request<AgentList>('GET', '/api/agents');
  }

  /**
   * A page of the caller's own sessions, newest first (`GET /api/sessions`): each one's id, agent,
   * creation time and title (the start of its first message); `next_before` reads the next page.
   *
   * @example
   * ```ts
   * const { sessions, next_before } = await client.sessions({ limit: 20 });
   * const older = next_before ? await client.sessions({ before: next_before }) : undefined;
   * ```
   */
  sessions(options: { limit?: number; before?: string } = {}): Promise<SessionList> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.before !== undefined) query.set('before', options.before);
    const search = query.size ? `?${query}` : '';
    return this.request<SessionList>('GET', `/api/sessions${search}`);
  }

  /** How long to wait before the `attempt`-th retry (from 1): doubling from `initialDelayMs`, jittered. */
  #retryDelay(attempt: number): number {
    const { initialDelayMs = 250, maxDelayMs = 8_000 } = this.options.retry ?? {};
    const jitter = this.options.reconnect?.jitter ?? 0.5;
    return Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)) * (1 - jitter * this.random());
  }

  /** The current token, or undefined without one. */
  async token(): Promise<string | undefined> {
    const { token } = this.options;
    return typeof token === 'function' ? await token() : token;
  }

  /**
   * Stores a file (`POST /api/files`) for an attachment to name by `file_id`: up to 4 MiB as the
   * request's body, anything larger through an upload URL (the bytes then go straight to the bucket).
   * The URL takes only these bytes: their SHA-256 is sent with the request for it (computed with Web
   * Crypto, which reads the whole file; pass `sha256`, its base64, where there is none, as in React
   * Native) and the PUT carries the headers the answer lists.
   *
   * @example
   * ```ts
   * const file = await client.upload(input.files[0]); // a File: its name and type are used
   * await session.send('What does this say?', { files: [file] });
   * ```
   */
  async upload(
    body: UploadBody,
    options: { name?: string; mediaType?: string; sha256?: string } = {},
  ): Promise<FileRecord> {
    const blob = typeof body === 'object' && 'arrayBuffer' in body ? body : undefined;
    const name = options.name ?? blob?.name ?? 'file';
    const mediaType =
      options.mediaType ||
      blob?.type ||
      (typeof body === 'string' ? 'text/plain' : 'application/octet-stream');
    const size =
      typeof body === 'string'
        ? new TextEncoder().encode(body).length
        : body instanceof ArrayBuffer || body instanceof Uint8Array
          ? body.byteLength
          : (blob?.size ?? 0);
    if (size <= MAX_BODY_UPLOAD)
      return this.request<FileRecord>('POST', `/api/files?name=${encodeURIComponent(name)}`, body, {
        contentType: mediaType,
        raw: true,
      });
    const record = await this.request<FileRecord>('POST', '/api/files', {
      name,
      media_type: mediaType,
      size,
      sha256: options.sha256 ?? (await sha256Of(body)),
    });
    if (!record.upload) return record;
    const res = await this.#fetch(record.upload.url, {
      method: record.upload.method,
      headers: record.upload.headers,
      body,
    });
    if (!res.ok)
      throw new SwitchboardApiError(res.status, 'upload_failed', `The upload answered ${res.status}.`);
    return { ...record, status: 'stored' };
  }

  /** Sends a frame on the open socket; false when there is none. */
  sendFrame(frame: Record<string, unknown>): boolean {
    if (this.#socket?.readyState !== OPEN) return false;
    this.#socket.send(JSON.stringify(frame));
    return true;
  }

  #setStatus(status: ConnectionStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    for (const listener of this.#statusListeners) listener(status);
  }

  #clear(timer: 'reconnect' | 'heartbeat' | 'lifetime' | 'resume' | 'rejoin'): void {
    const handle = {
      reconnect: this.#reconnectTimer,
      heartbeat: this.#heartbeatTimer,
      lifetime: this.#lifetimeTimer,
      resume: this.#resumeTimer,
      rejoin: this.#rejoinTimer,
    }[timer];
    if (handle !== undefined) this.timers.clearTimeout(handle);
    if (timer === 'reconnect') this.#reconnectTimer = undefined;
    else if (timer === 'heartbeat') this.#heartbeatTimer = undefined;
    else if (timer === 'lifetime') this.#lifetimeTimer = undefined;
    else if (timer === 'resume') this.#resumeTimer = undefined;
    else this.#rejoinTimer = undefined;
  }

  /** Opens a socket; once it is open it takes over from the one before (if any), which is then closed. */
  async #open(): Promise<void> {
    const WS = this.#WebSocket;
    const url = this.options.wsUrl;
    if (this.#closed || !WS || !url || this.#opening) return;
    this.#setStatus(this.#attempt === 0 && this.#status === 'idle' ? 'connecting' : 'reconnecting');
    let token: string | undefined;
    this.#opening = true;
    try {
      token = await this.token();
    } catch (error) {
      this.reportError(error);
      this.#scheduleReconnect();
      return;
    } finally {
      this.#opening = false;
    }
    if (this.#closed) return;
    let socket: WebSocketLike;
    try {
      socket = new WS(url, token ? [PROTOCOL, `${TOKEN_PROTOCOL}${token}`] : [PROTOCOL]);
    } catch (error) {
      this.reportError(error);
      this.#scheduleReconnect();
      return;
    }
    const previous = this.#socket;
    this.#socket = socket;
    socket.onopen = () => {
      if (this.#socket !== socket) return;
      this.#setStatus('open');
      this.#startTimers();
      for (const session of this.#sessions.values()) this.#join(session, true);
      if (previous && previous !== socket) previous.close(1000, 'replaced');
    };
    socket.onmessage = (event) => this.#onMessage(event.data);
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      // A replacement that never opened: the socket it was to replace goes too.
      if (previous && previous !== socket) previous.close(1000, 'replaced');
      this.#clear('heartbeat');
      this.#clear('lifetime');
      this.#clear('resume');
      if (!this.#closed) this.#scheduleReconnect();
    };
    socket.onerror = () => {};
  }

  /** Opens a new socket in place of the current one (a planned reconnect, or one that stopped answering). */
  #replace(): void {
    if (this.#closed) return;
    const old = this.#socket;
    if (old && old.readyState !== OPEN) {
      // Not open: drop it (its close will not schedule anything) and open another.
      this.#socket = undefined;
      old.onclose = null;
      old.close();
    }
    this.#clear('heartbeat');
    this.#clear('lifetime');
    void this.#open();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return;
    this.#setStatus('reconnecting');
    const {
      initialDelayMs = 500,
      maxDelayMs = 30_000,
      factor = 2,
      jitter = 0.5,
    } = this.options.reconnect ?? {};
    const base = Math.min(maxDelayMs, initialDelayMs * factor ** this.#attempt);
    const delay = base * (1 - jitter * this.random());
    this.#attempt += 1;
    this.#reconnectTimer = this.timers.setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#open();
    }, delay);
  }

  #startTimers(): void {
    this.#clear('heartbeat');
    this.#clear('lifetime');
    const every = this.options.heartbeatMs ?? 300_000;
    if (every > 0) {
      const tick = () => {
        this.#heartbeat();
        this.#heartbeatTimer = this.timers.setTimeout(tick, every);
      };
      this.#heartbeatTimer = this.timers.setTimeout(tick, every);
    }
    const lifetime = this.options.maxConnectionMs ?? 110 * 60_000;
    if (lifetime > 0)
      this.#lifetimeTimer = this.timers.setTimeout(() => {
        this.#lifetimeTimer = undefined;
        this.#replace();
      }, lifetime);
  }

  /**
   * A heartbeat: each session joins again from its last applied seq, which API Gateway counts as
   * activity, replays nothing new (or exactly what was missed), and is answered by `assistant:joined`.
   * When no frame at all arrives within `resumeTimeoutMs`, the socket is dead without knowing it (a
   * phone that slept, a network that changed) and is replaced. With no session there is nothing to
   * keep alive.
   */
  #heartbeat(): void {
    let sent = false;
    for (const session of this.#sessions.values()) sent = this.#join(session, false) || sent;
    if (!sent || this.#resumeTimer !== undefined) return;
    const before = this.#framesReceived;
    this.#resumeTimer = this.timers.setTimeout(() => {
      this.#resumeTimer = undefined;
      if (this.#framesReceived === before) this.#replace();
    }, this.options.resumeTimeoutMs ?? 5_000);
  }

  /**
   * Joins a session again from its last applied seq (after its first message created it).
   *
   * @example
   * ```ts
   * client.rejoin(session);
   * ```
   */
  rejoin(session: Session): boolean {
    return this.#join(session, true);
  }

  #join(session: Session, catchUp: boolean): boolean {
    const frame = session.joinFrame(catchUp);
    return this.sendFrame(frame);
  }

  /**
   * A frame API Gateway refused before any function ran names no frame of ours; the only frames the
   * client sends are joins, which may go again: every session still waiting for its join rejoins,
   * after a backoff that grows while refusals go on.
   */
  #rejoinLater(): void {
    if (this.#closed || this.#rejoinTimer !== undefined) return;
    this.#throttledJoins += 1;
    this.#rejoinTimer = this.timers.setTimeout(() => {
      this.#rejoinTimer = undefined;
      for (const session of this.#sessions.values()) if (session.awaitingJoin) this.#join(session, true);
    }, this.#retryDelay(this.#throttledJoins));
  }

  #onMessage(data: unknown): void {
    this.#framesReceived += 1;
    let frame: ServerFrame;
    try {
      frame = JSON.parse(String(data)) as ServerFrame;
    } catch {
      return;
    }
    for (const listener of this.#frameListeners) listener(frame);
    if (frame.type === 'events') {
      for (const event of (frame as EventsFrame).events) this.#sessions.get(event.session_id)?.receive(event);
    } else if (frame.type === 'assistant:joined') {
      const joined = frame as JoinedFrame;
      this.#attempt = 0;
      this.#throttledJoins = 0;
      this.#sessions.get(joined.session_id)?.joined(joined);
    } else if (frame.type === undefined && isThrottling(frame)) {
      this.#rejoinLater();
    } else if (frame.type === 'assistant:error') {
      const error = frameError(frame as ErrorFrame);
      // A join of a session that has no message yet: it is joined again once its first message is accepted.
      const waiting = [...this.#sessions.values()].some((session) => session.awaitingJoin);
      if (!(error.code === 'session_not_found' && waiting)) this.reportError(error);
    }
  }
}

/** An `assistant:error` frame as a {@link SwitchboardApiError} (its status unknown: 0). */
function frameError(frame: ErrorFrame) {
  const { code, message, issues } = frame.error;
  return new SwitchboardApiError(0, code, message, issues ?? [], { ...frame.error });
}

/**
 * Whether an answer is API Gateway's throttling refusal, `{"message":"Too Many Requests"}` (on
 * WebSocket with `connectionId` and `requestId`), rather than Switchboard's own `429 rate_limited`.
 */
function isThrottling(answer: unknown): boolean {
  const { message, error } = (answer ?? {}) as { message?: unknown; error?: unknown };
  return message === 'Too Many Requests' && error === undefined;
}

/** An answer's JSON; `{}` when it has none, or none that parses. */
function jsonOf(text: string): unknown {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    return {};
  }
}

/** The JSON of an answer, or its error. */
function answerOf<T>(
  res: { status: number; headers: { get(name: string): string | null } },
  text: string,
): T {
  const json = jsonOf(text);
  if (res.status < 400) return json as T;
  const retry = Number(res.headers.get('retry-after'));
  const body = (json ?? {}) as { error?: Record<string, unknown>; message?: string };
  if (body.error && typeof body.error === 'object') {
    // The server answers only codes of its table; an error object without one is not its answer.
    const { code, message, issues } = body.error as { code?: ErrorCode; message?: string; issues?: never[] };
    throw new SwitchboardApiError(
      res.status,
      code ?? 'gateway_error',
      message ?? `HTTP ${res.status}`,
      issues ?? [],
      body.error,
      Number.isFinite(retry) && retry > 0 ? retry : undefined,
    );
  }
  throw new SwitchboardApiError(
    res.status,
    'gateway_error',
    body.message ?? (text || `HTTP ${res.status}`),
    [],
    {},
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
  );
}

/**
 * Makes a client: HTTP with `fetch`, events over one WebSocket (or long polls when there is none),
 * reconnecting with backoff and resuming from each session's last applied seq.
 *
 * @example
 * ```ts
 * import { createClient } from 'switchboard/client';
 *
 * const client = createClient({
 *   url: 'https://api.example.com',
 *   wsUrl: 'wss://ws.example.com/prod',
 *   token: async () => (await auth.currentSession()).accessToken,
 *   hostActions: { select_issue: async ({ number }) => ui.select(number) },
 * });
 * ```
 */
export function createClient(options: ClientOptions): SwitchboardClient {
  return new SwitchboardClient(options);
}
