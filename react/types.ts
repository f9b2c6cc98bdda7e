import type {
  Accepted,
  ClientOptions,
  ClientToolHandler,
  ConnectionStatus,
  EventDataMap,
  FileRecord,
  HostActionHandler,
  HostContextInput,
  JsonSchema,
  PendingAction,
  ResolveAccepted,
  SendOptions,
  Session,
  SwitchboardClient,
  UploadBody,
} from '../client/index.ts';

/**
 * Where the conversation stands: `streaming` while a turn runs (from the moment a message is sent),
 * `requires_action` when the turn ended waiting on an approval, a question, a client tool or a host
 * action, `error` when the turn (or a request of this hook) failed, else `idle`.
 *
 * @example
 * ```ts
 * const busy = (status: ChatStatus) => status === 'streaming';
 * ```
 */
export type ChatStatus = 'idle' | 'streaming' | 'requires_action' | 'error';

/**
 * Text the agent streamed (or the user wrote).
 *
 * @example
 * ```ts
 * const part: TextPart = { type: 'text', text: 'It left the warehouse today.' };
 * ```
 */
export interface TextPart {
  type: 'text';
  text: string;
}

/**
 * A tool the agent ran on its side (`agent.tool_use`, then `agent.tool_result`).
 *
 * @example
 * ```ts
 * const part: ToolPart = { type: 'tool', id: 't1', name: 'track', args: { order: 42 }, state: 'running' };
 * ```
 */
export interface ToolPart {
  type: 'tool';
  id: string;
  name: string;
  args: unknown;
  state: 'running' | 'succeeded' | 'failed';
  result?: unknown;
  error?: unknown;
}

/**
 * A host action the agent called (`tool_call`): performed by a handler of `actions`, or answered
 * through its entry in `requests`; its outcome comes with `action.resolved`.
 *
 * @example
 * ```ts
 * const part: HostActionPart = { type: 'host_action', id: 'call_1', name: 'select_issue', args: { number: 2 }, state: 'pending' };
 * ```
 */
export interface HostActionPart {
  type: 'host_action';
  id: string;
  name: string;
  args: unknown;
  state: 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'expired' | 'superseded';
  result?: unknown;
}

/**
 * An approval, a question or a client tool the agent asked for (`action.required`), and how it was
 * settled (`action.resolved`). While `state` is `open`, its entry in `requests` answers it.
 *
 * @example
 * ```ts
 * function Card({ part }: { part: RequestPart }) {
 *   return part.state === 'open' ? <Approve id={part.id} /> : <span>{part.state}</span>;
 * }
 * ```
 */
export interface RequestPart {
  type: 'request';
  id: string;
  request: PendingAction;
  state: 'open' | 'resolved' | 'cancelled' | 'expired' | 'superseded';
  resolution: EventDataMap['action.resolved']['resolution'];
}

/**
 * A file: one the user sent with a message from this hook, or one an answer produced
 * (`final_response.files`).
 *
 * @example
 * ```ts
 * const part: FilePart = { type: 'file', id: 'file_1', name: 'notes.txt', mediaType: 'text/plain', size: 120 };
 * ```
 */
export interface FilePart {
  type: 'file';
  id: string;
  name: string;
  mediaType: string | null;
  size: number | null;
}

/**
 * Something the turn went on without (`agent.warning`): an MCP server whose tools it could not read,
 * tools it left out. `source` names the server, when the warning is about one.
 *
 * @example
 * ```ts
 * const part: WarningPart = { type: 'warning', code: 'mcp_server_unavailable', message: 'The MCP server "docs" is unavailable: …', source: 'docs' };
 * ```
 */
export interface WarningPart {
  type: 'warning';
  code: string;
  message: string;
  source: string | null;
}

/**
 * One piece of a message, in the order the log told it.
 *
 * @example
 * ```ts
 * const text = (parts: ChatPart[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
 * ```
 */
export type ChatPart = TextPart | ToolPart | HostActionPart | RequestPart | FilePart | WarningPart;

/**
 * What a failed turn's `session.error` said: its code (docs/protocol.md, "HTTP API") and its message.
 *
 * @example
 * ```ts
 * const failed: TurnError = { code: 'agent_error', message: 'The agent failed.' };
 * ```
 */
export interface TurnError {
  code: string;
  message: string;
}

/**
 * A message of the conversation, built from the session's event log. Messages a regenerate or an
 * edit replaced leave the list. A turn that failed before it wrote anything still has its assistant
 * message, done, with no parts, its error in `errors`, and its run's id as `id`.
 *
 * @example
 * ```ts
 * messages.map((m) => <Bubble key={m.id} role={m.role} text={m.text} streaming={m.state === 'streaming'} />);
 * ```
 */
export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  parts: ChatPart[];
  /** Every text part, joined. */
  text: string;
  /** The run that made it (an assistant message continued after a host action keeps its first run's). */
  runId: string;
  /** `streaming` until the answer's `final_response`; a user message is always `done`. */
  state: 'streaming' | 'done';
  /** The rating this user gave the answer (restored from the stored messages), or null. */
  rating: 'up' | 'down' | null;
  /** The errors its turn failed with (`session.error`), in the log's order; empty on a user message. */
  errors: TurnError[];
  /** The answer's stop reason and usage, once it is final. */
  stopReason?: string;
  usage?: EventDataMap['final_response']['usage'];
}

/**
 * An approval the turn waits on.
 *
 * @example
 * ```ts
 * await request.approve({ order: 7, amount: 20 }, { comment: 'a bit less' }); // checked against argsSchema first
 * ```
 */
export interface ApprovalRequest {
  type: 'tool_approval';
  id: string;
  toolName?: string;
  title?: string;
  args: unknown;
  argsSchema?: JsonSchema;
  action: PendingAction;
  /**
   * Approves, optionally with edited arguments. Edited arguments that do not fit `argsSchema` are
   * refused before anything is sent (`ArgsValidationError`, `issues` at `approved_args.<field>`).
   */
  approve(
    args?: Record<string, unknown>,
    options?: { comment?: string; rememberForSession?: boolean },
  ): Promise<ResolveAccepted>;
  deny(options?: { comment?: string }): Promise<ResolveAccepted>;
}

/**
 * A question the turn waits on.
 *
 * @example
 * ```ts
 * await request.answer(['Team']);
 * ```
 */
export interface QuestionRequest {
  type: 'user_question';
  id: string;
  title?: string;
  questions: NonNullable<PendingAction['questions']>;
  action: PendingAction;
  answer(
    answers: unknown[] | Record<string, unknown>,
    options?: { comment?: string },
  ): Promise<ResolveAccepted>;
}

/**
 * A client tool the turn waits on, for which the hook has no handler in `clientTools`.
 *
 * @example
 * ```ts
 * await request.answer({ time: new Date().toLocaleTimeString() });
 * ```
 */
export interface ClientToolRequest {
  type: 'client_tool';
  id: string;
  toolName?: string;
  title?: string;
  args: unknown;
  action: PendingAction;
  /** Sends the tool's output. */
  answer(output: unknown): Promise<ResolveAccepted>;
  /** Says why the tool could not run. */
  fail(error: string): Promise<ResolveAccepted>;
}

/**
 * A host action the turn waits on, for which the hook has no handler in `actions`.
 *
 * @example
 * ```ts
 * await request.answer({ selected: 2 }); // or request.fail('no such issue')
 * ```
 */
export interface HostActionRequest {
  type: 'host_tool';
  id: string;
  toolName: string;
  args: unknown;
  /** Sends the action's result as the continuation. */
  answer(result: unknown): Promise<Accepted>;
  /** Sends `tool_outcome: "failed"` with the reason as the result. */
  fail(reason: unknown): Promise<Accepted>;
}

/**
 * Something the turn waits on that a person (or the app) must answer. Client tools and host actions
 * that have a handler are answered by the hook and are not listed.
 *
 * @example
 * ```ts
 * for (const request of requests) if (request.type === 'tool_approval') await request.approve();
 * ```
 */
export type PendingRequest = ApprovalRequest | QuestionRequest | ClientToolRequest | HostActionRequest;

/**
 * A host action of {@link UseSwitchboardChatOptions.actions}: its handler alone, or declared too
 * (with `parameters`, a JSON Schema of an object), in which case the hook adds it to
 * `host_context.actions` so the agent can call it.
 *
 * @example
 * ```ts
 * const closeIssue: HostActionOption = {
 *   description: 'Close an issue on the page',
 *   parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
 *   handler: ({ number }: { number: number }) => issues.close(number),
 * };
 * ```
 */
export type HostActionOption =
  | HostActionHandler
  | { description?: string; parameters: JsonSchema; handler: HostActionHandler };

/**
 * Options of `useSwitchboardChat`: a client (shared, its lifetime the app's), or what it takes to make
 * one (`url`, `wsUrl`, `token`…: the hook makes it, and closes it on unmount); the session and its
 * agent; and what the page offers.
 *
 * @example
 * ```ts
 * const options: UseSwitchboardChatOptions = { url: API_URL, wsUrl: WS_URL, token: getToken, sessionId: 'support-42', agentId: 'support' };
 * ```
 */
export type UseSwitchboardChatOptions = (
  | ({ client: SwitchboardClient } & { [K in Exclude<keyof ClientOptions, 'clientTools'>]?: never })
  | (Omit<ClientOptions, 'clientTools'> & { client?: never })
) & {
  /** The host's id for the conversation (created by its first message). */
  sessionId: string;
  /** The agent, for the session's first message. */
  agentId?: string;
  /** What the host shows and can do: sent with the join and with every message. */
  hostContext?: HostContextInput;
  /** Host actions by name: performed when the agent calls them (declared in `host_context` when they have `parameters`). */
  actions?: Record<string, HostActionOption>;
  /** Client tools by name: each answers a `client_tool` request once, on its own. */
  clientTools?: Record<string, ClientToolHandler>;
};

/**
 * The conversation as state: what renders.
 *
 * @example
 * ```ts
 * const { messages, status, connection }: ChatState = chat;
 * ```
 */
export interface ChatState {
  messages: ChatMessage[];
  status: ChatStatus;
  /**
   * The last turn stopped at `max_turns` or `budget_reached` (`status_idle` with status
   * `incomplete`) and nothing came after it: `continueTurn()` carries its loop on. (The server still
   * refuses one whose agent cannot continue: a host agent's, `409 nothing_to_continue`.)
   */
  canContinue: boolean;
  /** The client's connection (`idle`, `connecting`, `open`, `reconnecting`, `closed`). */
  connection: ConnectionStatus;
  /**
   * The latest error that belongs to no turn: a refused request, a failed upload, a failed handler's
   * answer. A failed turn's error is in its assistant message's `errors` (and `status` is `error`).
   */
  error: Error | undefined;
  /** What the turn waits on and the hook cannot answer by itself. */
  requests: PendingRequest[];
  /** The highest seq applied. */
  lastSeq: number;
}

/**
 * What `useSwitchboardChat` returns: the state, and the requests a host makes. The functions keep
 * their identity across renders.
 *
 * @example
 * ```ts
 * const { messages, status, send, stop } = useSwitchboardChat({ client, sessionId, agentId: 'support' });
 * ```
 */
export interface SwitchboardChat extends ChatState {
  /** Sends a message (the hook's `hostContext` unless the options name another). */
  send(content: string, options?: SendOptions): Promise<Accepted>;
  /** Stops the running turn (nothing to stop is not an error). */
  stop(): Promise<void>;
  /** Asks for an answer again: the newest by default. */
  regenerate(messageId?: string): Promise<Accepted>;
  /** Carries on the last turn, stopped at `max_turns` or `budget_reached` (see `canContinue`): no new user message. */
  continueTurn(): Promise<Accepted>;
  /** Changes a sent user message: the conversation is cut back to it and runs again. */
  edit(messageId: string, content: string, options?: SendOptions): Promise<Accepted>;
  /** Rates an answer (`null` withdraws the rating); shown at once, undone if the server refuses. */
  rate(
    messageId: string,
    rating: 'up' | 'down' | null,
    options?: { reasons?: string[]; comment?: string },
  ): Promise<void>;
  /** Stores a file to send with a message (`send(text, { files: [record] })`). */
  upload(
    body: UploadBody,
    options?: { name?: string; mediaType?: string; sha256?: string },
  ): Promise<FileRecord>;
  /** Reconnects now if the socket is gone (an app back from the background); the hook does it on `visibilitychange` and `online`. */
  resume(): void;
  /** The client the hook rides on. */
  client: SwitchboardClient;
  /** The session, once the hook is mounted. */
  session: Session | undefined;
}
