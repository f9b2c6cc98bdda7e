import type { PendingAction, StopReason, Usage } from '../lib/agents/index.ts';
import type { RewriteMode } from '../lib/contract/index.ts';
import type { SessionEvent } from '../lib/store/events.ts';

/**
 * A host tool call the turn waits on: `final_response.pending_tool_call`, and `pending_action` on
 * `GET /api/sessions/{id}`.
 *
 * @example
 * ```ts
 * session.on('final_response', (e) => {
 *   const call: PendingToolCall | null = e.data.pending_tool_call;
 *   if (call) console.log(call.tool_name, call.arguments);
 * });
 * ```
 */
export interface PendingToolCall {
  tool_name: string;
  call_id: string;
  arguments: unknown;
  /** Call ids of further host actions of the same response, handed over one at a time. */
  queued: string[];
}

/**
 * A file an answer produced (`final_response.files`).
 *
 * @example
 * ```ts
 * session.on('final_response', (e) => e.data.files.forEach((f: AnswerFile) => console.log(f.name)));
 * ```
 */
export interface AnswerFile {
  id: string;
  name: string;
  media_type?: string;
  mimeType?: string;
  size: number;
}

/** What closes a turn: `session.status_idle` and `session.status_requires_action`. */
interface TurnEnd {
  status: 'completed' | 'error' | 'cancelled' | 'incomplete' | 'requires_action';
  stop_reason: StopReason | null;
  detail: unknown;
  spent_usd: number;
  usage?: Usage | null;
}

/**
 * The `data` of each event type of the session's event log (docs/protocol.md, "Events").
 *
 * @example
 * ```ts
 * const text: EventDataMap['agent.message.delta']['text'] = 'It left ';
 * ```
 */
export interface EventDataMap {
  'session.status_running': { kind: string; interrupted?: string[] };
  'messages.replaced': { message_ids: string[]; mode: RewriteMode; from_message_id: string };
  'user.message': { message_id: string; content: string; mode?: RewriteMode; from_message_id?: string };
  'agent.tool_use': { message_id: string; id: string; name: string; args: unknown };
  'agent.tool_result': {
    message_id: string;
    id: string;
    name: string;
    ok: boolean;
    result: unknown;
    error: unknown;
  };
  'agent.message.delta': { message_id: string; text: string };
  'action.required': { message_id: string; actions: PendingAction[] };
  final_response: {
    message_id: string;
    content: string | null;
    stop_reason: StopReason;
    usage: Usage | null;
    pending_tool_call: PendingToolCall | null;
    files: AnswerFile[];
    /** With `output_mode: "host_tools"`. */
    decision?: 'hold' | 'pending' | 'completed';
  };
  tool_call: { message_id: string; category: 'host'; call_id: string; name: string; arguments: unknown };
  'action.resolved': {
    action_id: string;
    message_id: string;
    type: PendingAction['type'];
    status: 'resolved' | 'cancelled' | 'expired' | 'superseded';
    actor: string | null;
    channel: string | null;
    expired: boolean;
    resolution: unknown;
  };
  'session.error': { code: string; message: string; status: number };
  'session.status_idle': TurnEnd;
  'session.status_requires_action': TurnEnd;
  'session.deleted': Record<string, never>;
}

/**
 * Every event type the log holds.
 *
 * @example
 * ```ts
 * const ends: EventType[] = ['session.status_idle', 'session.status_requires_action'];
 * ```
 */
export type EventType = keyof EventDataMap;

/**
 * One event of a session's log, typed by its `type`: the server's envelope (`SessionEvent`, the type
 * the server stores and sends) with the data of that type. An event whose JSON was over 120 KB arrives
 * with `truncated: true` and `href`; the client reads it whole before delivering it.
 *
 * @example
 * ```ts
 * function show(event: SwitchboardEvent) {
 *   if (event.type === 'agent.message.delta') append(event.data.message_id, event.data.text);
 * }
 * ```
 */
export type SwitchboardEvent = {
  [T in EventType]: Omit<SessionEvent, 'type' | 'data'> & {
    type: T;
    data: EventDataMap[T];
    truncated?: boolean;
    href?: string;
  };
}[EventType];

/**
 * The event of one type.
 *
 * @example
 * ```ts
 * const onDelta = (e: EventOf<'agent.message.delta'>) => console.log(e.data.text);
 * ```
 */
export type EventOf<T extends EventType> = Extract<SwitchboardEvent, { type: T }>;

/**
 * The `assistant:joined` frame: the join's replay is done through `replayed_through`.
 *
 * @example
 * ```ts
 * const joined: JoinedFrame = { type: 'assistant:joined', session_id: 's1', replayed_through: 12, last_seq: 12 };
 * ```
 */
export interface JoinedFrame {
  type: 'assistant:joined';
  session_id: string;
  replayed_through: number;
  last_seq: number;
}

/**
 * The `events` frame: every event of one flush window, in seq order.
 *
 * @example
 * ```ts
 * const frame: EventsFrame = { type: 'events', events: [] };
 * ```
 */
export interface EventsFrame {
  type: 'events';
  events: SwitchboardEvent[];
}

/**
 * The `assistant:error` frame, answering a frame that could not be applied.
 *
 * @example
 * ```ts
 * client.onFrame((f) => { if (f.type === 'assistant:error') console.warn((f as ErrorFrame).error.code); });
 * ```
 */
export interface ErrorFrame {
  type: 'assistant:error';
  request_id?: string;
  error: {
    type: string;
    code: string;
    message: string;
    path: (string | number)[];
    issues?: { path: (string | number)[]; message: string }[];
    retry_after?: number;
  };
}

/**
 * Any frame the server sends on the WebSocket. Route answers the client does not read itself
 * (`assistant:accepted`, `assistant:cancelled`, …) arrive as a plain record.
 *
 * @example
 * ```ts
 * client.onFrame((frame: ServerFrame) => console.log(frame.type));
 * ```
 */
export type ServerFrame =
  | EventsFrame
  | JoinedFrame
  | ErrorFrame
  | ({ type: string } & Record<string, unknown>);
