import type { ErrorCode, ErrorType } from '../lib/errors/codes.ts';
import type { AnswerFile, PendingToolCall, SessionEventData, SessionEventType } from '../lib/events/log.ts';
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
/**
 * A file an answer produced (`final_response.files`).
 *
 * @example
 * ```ts
 * session.on('final_response', (e) => e.data.files.forEach((f: AnswerFile) => console.log(f.name)));
 * ```
 */
export type { AnswerFile, PendingToolCall };

/**
 * The `data` of each event type of the session's event log (docs/protocol.md, "Events"): the
 * server's own schemas (lib/events/log.ts), as types.
 *
 * @example
 * ```ts
 * const text: EventDataMap['agent.message.delta']['text'] = 'It left ';
 * ```
 */
export type EventDataMap = { [T in SessionEventType]: SessionEventData<T> };

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
    type: ErrorType;
    code: ErrorCode;
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
