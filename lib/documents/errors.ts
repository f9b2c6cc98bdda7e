import type { HttpRouteKey } from '../contract/routes.ts';
import { ERROR_CODES, type ErrorCode } from '../errors/index.ts';

/**
 * When a caller gets each code of `ERROR_CODES` (lib/errors/codes.ts), in the words of
 * docs/protocol.md's error table, which is written from the map and these. Here, with the
 * documents, rather than in the map: the functions never say them. Typed by the map's codes, so a
 * code without words fails to compile.
 */
export const ERROR_DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_json: 'the body is missing or not JSON',
  unauthorized: "the authoriser's token names no user",
  invalid_token:
    'a bearer token that does not prove who the caller is: missing, malformed, expired, not yet valid, signed by another key or algorithm, from another issuer or for another audience; the message says which check failed and never quotes the token',
  budget_exceeded:
    'a new message to a session that has spent its budget, or from an owner or tenant that has spent its rolling-day limit; see [usage and budgets](#usage-and-budgets). The error adds `spent_usd`, `budget_usd` and `scope` (`session`, `user` or `tenant`). Nothing of the message is stored',
  tenant_suspended:
    "the caller's tenant is suspended by an operator (`switchboard tenant suspend`, [operations.md](operations.md#repair-tools)): no new message or continuation is taken until it is resumed. Nothing of the message is stored",
  forbidden: 'the caller is known but may not do this: `hitl.authorizeResolve` refused an answer',
  session_not_found:
    'no such session, or not yours, or a path id that breaks the [id rule](#ids) (`issues` names `id`)',
  session_deleted:
    'the session was deleted while an [AG-UI](ag-ui.md) stream followed its run: the stream ends with this `RUN_ERROR`',
  agent_not_found: '`agent_id` names no registered agent (`issues` names `agent_id`)',
  route_not_found: 'no such route',
  file_not_found:
    'no such file, or not yours, deleted or past its expiry, or a path id that breaks the id rule (`issues` names `id`)',
  message_not_found:
    'a `from_message_id` or a rated message or a `content_ref` names no message of the session, or a path id that is not a message id (`issues` names `from_message_id` or `messageId`)',
  event_not_found:
    'no event of the session has this seq (yet), or a path `seq` that is not a whole number from 1 (`issues` names `seq`)',
  tool_not_remembered:
    'the tool named is not remembered for the session: never approved with `remember_for_session: true`, or forgotten already (`issues` names `name`)',
  action_not_found:
    'no such request in this session, or an `actionId` that breaks the [id rule](#ids) (`issues` names `actionId`)',
  resolve_not_supported: 'the agent has no `resolveAction`: its requests cannot be answered',
  agent_mismatch: "the message names another agent than the session's",
  session_busy:
    'a message sent with `on_busy: "reject"` while a turn of the session is queued or running; the error carries `run_id`, the turn it waits on (the running one, else the first queued), and its message says how to send it instead. Nothing of the message is stored',
  not_newest_answer: 'a regenerate names an answer that is not the newest one',
  message_replaced: 'a regenerate or an edit names a message that an earlier regenerate or edit replaced',
  not_pending: 'the request or host tool call named is not pending',
  not_a_host_call: 'a continuation names a pending request that is not a host tool call: answer it instead',
  already_resolved: 'the request was answered before: the message says with which decision and by whom',
  withdrawn: 'a new message or the agent withdrew the request',
  superseded: 'a newer message overtook the host tool call',
  action_expired: "the request's `expiresAt` passed, whether or not the sweep has run",
  not_an_answer: 'the request is a host tool call: send a continuation instead',
  nothing_to_cancel: 'the session has no queued or running turn',
  nothing_to_continue:
    "the session's last turn did not stop at `max_turns` or `budget_reached` with a loop to carry on (it completed, is still running, a later message was sent, or its agent is a host agent, which cannot be continued)",
  file_too_large:
    "a file sent as the body of `POST /api/files` is over 4 MiB (`issues` names `body`); or a message attaches a file over its agent's `files.maxBytes` (`issues` names the `file_id`)",
  file_quota_exceeded:
    "the file would take its owner's uploads past `files.quotaBytesPerUser` (`issues` names `body`, or `size` for an upload URL); or a message's files would take its session past `files.maxFilesPerSession` or `files.quotaBytesPerSession` (`issues` names the first new attachment's `file_id`)",
  payload_too_large:
    'a JSON body over what the route takes: 10 MB over HTTP, 16 KiB for an upload request, 128 KB for a WebSocket frame',
  unsupported_media_type:
    "`POST /api/files` with a `content-type` that is not a media type, or is a form encoding (`issues` names `content-type`); or a message attaches a file of a type its agent's `files.mediaTypes` does not accept (`issues` names the `file_id`)",
  validation_error: 'a field is missing, malformed or unknown (unknown fields are always rejected)',
  too_deep:
    'objects and arrays nest deeper than 64 levels, the body itself being level 1 (`issues` names the path where it went too deep)',
  unknown_action: 'WebSocket only: a frame names no known action (`issues` names `action`)',
  rate_limited:
    'the caller sent more than `limits.perUser` allows (or, on the WebSocket, its connection more than `limits.perConnection`); `Retry-After` says in how many seconds the next window starts, the message names the limit. Nothing of the request was stored',
  internal_error:
    "a fault on the server's side; details are logged, never returned. Another 500 (`invalid_context`, …) says what went wrong, unless the server is built with `maskServerErrors`: then its message is `Something went wrong on our side.` and the detail is only logged",
  invalid_context:
    "the server's `resolveContext` returned something the runtime cannot use (no user id, data that is not a JSON object, a tenant that is not a string)",
  invalid_host_result: "an agent's `invoke` or `resolveAction` returned something the runtime cannot use",
  agent_unavailable: "a queued turn's agent is no longer registered when the turn runs",
  agent_error: 'the agent threw while running the turn; its own message stays in the log',
  feedback_failed:
    "a rating was stored but the agent's `feedback` hook or the server's `onFeedback` threw; the message carries the hook's own (generic under `maskServerErrors`), the error is logged, and sending the same rating again is safe",
  invalid_decision:
    'a silent host decision (`output_mode: "host_tools"`) proposed several host actions: the turn fails with nothing actionable ([host-contract.md](host-contract.md#silent-host-decisions))',
  worker_lost:
    'the worker running the turn stopped before it finished (an answer that waited on the turn with `wait_ms`)',
  job_lost:
    "a queued run's job kept failing before any worker claimed it (or went to the dead-letter queue), and the run was given up on: the run's `error` ([runs.md](runs.md))",
  stream_failed:
    'an [AG-UI](ag-ui.md) stream could not go on (its run goes on in the worker): the stream ends with this `RUN_ERROR`; post the same run again to go on',
  model_error:
    "a model agent's endpoint failed after its client's own retries (an error status, a broken stream, no connection) or sent a reply that is malformed or past a bound ([models.md](models.md#limits-of-a-model-reply)): the turn fails, its message the endpoint's status, error type and code and its message with anything like a credential removed, never the key (generic under `maskServerErrors`)",
  service_busy: 'DynamoDB kept part of a batch write unprocessed (it throttled): try again later',
  stream_timeout:
    'an [AG-UI](ag-ui.md) stream reached its time limit before its run ended: the stream ends with this `RUN_ERROR`; post the same run (same `runId`) again to go on',
};

/** Every code, in the map's order: for a schema's enum. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** A code's HTTP status, as lib/errors answers it. */
export const statusOf = (code: ErrorCode): number => ERROR_CODES[code][0];

/** What every route may answer: no identity or an unusable one, a rate limit, a fault on the server's side. */
const EVERY: ErrorCode[] = [
  'unauthorized',
  'invalid_token',
  'rate_limited',
  'internal_error',
  'invalid_context',
];
/** What the one parse of a JSON body answers, before any field is read. */
const BODY: ErrorCode[] = ['invalid_json', 'payload_too_large', 'validation_error', 'too_deep'];
/** A session named in the path (or not the caller's, or an id that breaks the id rule). */
const SESSION: ErrorCode[] = ['session_not_found'];

/** The codes each route answers, besides {@link EVERY}. */
export const ROUTE_ERRORS: Record<HttpRouteKey, ErrorCode[]> = {
  'GET /api/agents': ['validation_error'],
  'POST /api/chat': [
    ...BODY,
    'budget_exceeded',
    'tenant_suspended',
    'session_not_found',
    'agent_not_found',
    'message_not_found',
    'file_not_found',
    'action_not_found',
    'agent_mismatch',
    'session_busy',
    'not_newest_answer',
    'message_replaced',
    'not_pending',
    'not_a_host_call',
    'file_too_large',
    'file_quota_exceeded',
    'unsupported_media_type',
  ],
  'GET /api/sessions': ['validation_error'],
  'GET /api/sessions/{id}': SESSION,
  'GET /api/sessions/{id}/messages': [...SESSION, 'validation_error'],
  'GET /api/sessions/{id}/events': [...SESSION, 'validation_error'],
  'GET /api/sessions/{id}/events/{seq}': [...SESSION, 'event_not_found'],
  'POST /api/sessions/{id}/actions/{actionId}': [
    ...BODY,
    ...SESSION,
    'forbidden',
    'action_not_found',
    'resolve_not_supported',
    'already_resolved',
    'withdrawn',
    'superseded',
    'action_expired',
    'not_an_answer',
    'not_pending',
  ],
  'POST /api/sessions/{id}/cancel': [...SESSION, 'nothing_to_cancel'],
  'POST /api/sessions/{id}/continue': [
    ...BODY,
    ...SESSION,
    'budget_exceeded',
    'tenant_suspended',
    'nothing_to_continue',
  ],
  'DELETE /api/sessions/{id}': SESSION,
  'POST /api/files': [...BODY, 'file_too_large', 'file_quota_exceeded', 'unsupported_media_type'],
  'GET /api/files/{id}': ['file_not_found'],
  'DELETE /api/files/{id}': ['file_not_found'],
  'POST /api/sessions/{id}/messages/{messageId}/feedback': [
    ...BODY,
    ...SESSION,
    'message_not_found',
    'feedback_failed',
  ],
  'GET /api/sessions/{id}/export': [...SESSION, 'validation_error'],
  'GET /api/sessions/{id}/messages/{messageId}/content': [...SESSION, 'message_not_found'],
  'GET /api/sessions/{id}/remembered-tools': SESSION,
  'DELETE /api/sessions/{id}/remembered-tools/{name}': [...SESSION, 'tool_not_remembered'],
};

/** The codes a route answers, by status, in the order of the statuses. */
export function errorsByStatus(route: HttpRouteKey): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  const codes = [...new Set([...ROUTE_ERRORS[route], ...EVERY])];
  for (const code of codes.sort((a, b) => statusOf(a) - statusOf(b))) {
    byStatus.set(statusOf(code), [...(byStatus.get(statusOf(code)) ?? []), code]);
  }
  return byStatus;
}
