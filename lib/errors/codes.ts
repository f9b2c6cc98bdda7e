/** Where an error belongs, for a WebSocket `assistant:error` frame's `error.type`. */
export const ERROR_TYPES = ['validation', 'session', 'not_found', 'auth', 'limit', 'internal'] as const;

/** One of {@link ERROR_TYPES}. */
export type ErrorType = (typeof ERROR_TYPES)[number];

/** What one code answers: its HTTP status, its WebSocket error type, and when a caller gets it. */
export interface ErrorCodeInfo {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The `error.type` of the WebSocket `assistant:error` frame. */
  readonly type: ErrorType;
  /** When a caller gets it, in the words of docs/protocol.md's error table. */
  readonly description: string;
}

/**
 * Every code Switchboard answers a caller with. The one list: errors take their status and type
 * from it, the transport answers by it, and the OpenAPI document and docs/protocol.md's error table
 * are written from it, so a code cannot be thrown without being documented. The order is the
 * table's within one status.
 */
export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'validation', description: 'the body is missing or not JSON' },
  unauthorized: { status: 401, type: 'auth', description: "the authoriser's token names no user" },
  invalid_token: {
    status: 401,
    type: 'auth',
    description:
      'a bearer token that does not prove who the caller is: missing, malformed, expired, not yet valid, signed by another key or algorithm, from another issuer or for another audience; the message says which check failed and never quotes the token',
  },
  budget_exceeded: {
    status: 402,
    type: 'limit',
    description:
      'a new message to a session that has spent its budget, or from an owner or tenant that has spent its rolling-day limit; see [usage and budgets](#usage-and-budgets). The error adds `spent_usd`, `budget_usd` and `scope` (`session`, `user` or `tenant`). Nothing of the message is stored',
  },
  tenant_suspended: {
    status: 403,
    type: 'auth',
    description:
      "the caller's tenant is suspended by an operator (`switchboard tenant suspend`, [operations.md](operations.md#repair-tools)): no new message or continuation is taken until it is resumed. Nothing of the message is stored",
  },
  forbidden: {
    status: 403,
    type: 'auth',
    description: 'the caller is known but may not do this: `hitl.authorizeResolve` refused an answer',
  },
  session_not_found: {
    status: 404,
    type: 'not_found',
    description:
      'no such session, or not yours, or a path id that breaks the [id rule](#ids) (`issues` names `id`)',
  },
  agent_not_found: {
    status: 404,
    type: 'not_found',
    description: '`agent_id` names no registered agent (`issues` names `agent_id`)',
  },
  route_not_found: { status: 404, type: 'not_found', description: 'no such route' },
  file_not_found: {
    status: 404,
    type: 'not_found',
    description:
      'no such file, or not yours, deleted or past its expiry, or a path id that breaks the id rule (`issues` names `id`)',
  },
  message_not_found: {
    status: 404,
    type: 'not_found',
    description:
      'a `from_message_id` or a rated message names no message of the session, or a path id that is not a message id (`issues` names `from_message_id` or `messageId`)',
  },
  action_not_found: {
    status: 404,
    type: 'not_found',
    description:
      'no such request in this session, or an `actionId` that breaks the [id rule](#ids) (`issues` names `actionId`)',
  },
  resolve_not_supported: {
    status: 404,
    type: 'not_found',
    description: 'the agent has no `resolveAction`: its requests cannot be answered',
  },
  agent_mismatch: {
    status: 409,
    type: 'session',
    description: "the message names another agent than the session's",
  },
  session_busy: {
    status: 409,
    type: 'session',
    description:
      'a message sent with `on_busy: "reject"` while a turn of the session is queued or running; the error carries `run_id`, the turn it waits on (the running one, else the first queued), and its message says how to send it instead. Nothing of the message is stored',
  },
  not_newest_answer: {
    status: 409,
    type: 'session',
    description: 'a regenerate names an answer that is not the newest one',
  },
  message_replaced: {
    status: 409,
    type: 'session',
    description: 'a regenerate or an edit names a message that an earlier regenerate or edit replaced',
  },
  not_pending: {
    status: 409,
    type: 'session',
    description: 'the request or host tool call named is not pending',
  },
  not_a_host_call: {
    status: 409,
    type: 'session',
    description: 'a continuation names a pending request that is not a host tool call: answer it instead',
  },
  already_resolved: {
    status: 409,
    type: 'session',
    description: 'the request was answered before: the message says with which decision and by whom',
  },
  withdrawn: { status: 409, type: 'session', description: 'a new message or the agent withdrew the request' },
  superseded: {
    status: 409,
    type: 'session',
    description: 'a newer message overtook the host tool call',
  },
  action_expired: {
    status: 409,
    type: 'session',
    description: "the request's `expiresAt` passed, whether or not the sweep has run",
  },
  not_an_answer: {
    status: 409,
    type: 'session',
    description: 'the request is a host tool call: send a continuation instead',
  },
  nothing_to_cancel: {
    status: 409,
    type: 'session',
    description: 'the session has no queued or running turn',
  },
  file_too_large: {
    status: 413,
    type: 'validation',
    description:
      "a file sent as the body of `POST /api/files` is over 4 MiB (`issues` names `body`); or a message attaches a file over its agent's `files.maxBytes` (`issues` names the `file_id`)",
  },
  file_quota_exceeded: {
    status: 413,
    type: 'validation',
    description:
      "the file would take its owner's uploads past `files.quotaBytesPerUser` (`issues` names `body`, or `size` for an upload URL); or a message's files would take its session past `files.maxFilesPerSession` or `files.quotaBytesPerSession` (`issues` names the first new attachment's `file_id`)",
  },
  payload_too_large: {
    status: 413,
    type: 'validation',
    description:
      'a JSON body over what the route takes: 10 MB over HTTP, 16 KiB for an upload request, 128 KB for a WebSocket frame',
  },
  unsupported_media_type: {
    status: 415,
    type: 'validation',
    description:
      "`POST /api/files` with a `content-type` that is not a media type, or is a form encoding (`issues` names `content-type`); or a message attaches a file of a type its agent's `files.mediaTypes` does not accept (`issues` names the `file_id`)",
  },
  validation_error: {
    status: 422,
    type: 'validation',
    description: 'a field is missing, malformed or unknown (unknown fields are always rejected)',
  },
  too_deep: {
    status: 422,
    type: 'validation',
    description:
      'objects and arrays nest deeper than 64 levels, the body itself being level 1 (`issues` names the path where it went too deep)',
  },
  unknown_action: {
    status: 422,
    type: 'validation',
    description: 'WebSocket only: a frame names no known action (`issues` names `action`)',
  },
  rate_limited: {
    status: 429,
    type: 'limit',
    description:
      'the caller sent more than `limits.perUser` allows (or, on the WebSocket, its connection more than `limits.perConnection`); `Retry-After` says in how many seconds the next window starts, the message names the limit. Nothing of the request was stored',
  },
  internal_error: {
    status: 500,
    type: 'internal',
    description:
      "a fault on the server's side; details are logged, never returned. Another 500 (`invalid_context`, …) says what went wrong, unless the server is built with `maskServerErrors`: then its message is `Something went wrong on our side.` and the detail is only logged",
  },
  invalid_context: {
    status: 500,
    type: 'internal',
    description:
      "the server's `resolveContext` returned something the runtime cannot use (no user id, data that is not a JSON object, a tenant that is not a string)",
  },
  invalid_host_result: {
    status: 500,
    type: 'internal',
    description: "an agent's `invoke` or `resolveAction` returned something the runtime cannot use",
  },
  agent_unavailable: {
    status: 500,
    type: 'internal',
    description: "a queued turn's agent is no longer registered when the turn runs",
  },
  agent_error: {
    status: 500,
    type: 'internal',
    description: 'the agent threw while running the turn; its own message stays in the log',
  },
  feedback_failed: {
    status: 500,
    type: 'internal',
    description:
      "a rating was stored but the agent's `feedback` hook or the server's `onFeedback` threw; the message carries the hook's own (generic under `maskServerErrors`), the error is logged, and sending the same rating again is safe",
  },
  invalid_decision: {
    status: 500,
    type: 'internal',
    description:
      'a silent host decision (`output_mode: "host_tools"`) proposed several host actions: the turn fails with nothing actionable ([host-contract.md](host-contract.md#silent-host-decisions))',
  },
  worker_lost: {
    status: 500,
    type: 'internal',
    description:
      'the worker running the turn stopped before it finished (an answer that waited on the turn with `wait_ms`)',
  },
  service_busy: {
    status: 503,
    type: 'internal',
    description: 'DynamoDB kept part of a batch write unprocessed (it throttled): try again later',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code Switchboard answers with: one of {@link ERROR_CODES}' keys, so an unlisted one fails to compile. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Every code, in the map's order: for a schema's enum. */
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Whether a string read back (from the log, say) is one of the codes. */
export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);

/** The codes that answer with HTTP status `S`: what a class of one status may be made with. */
export type ErrorCodeWithStatus<S extends number> = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] extends S ? K : never;
}[ErrorCode];

/** The codes of WebSocket error type `T`. */
export type ErrorCodeOfType<T extends ErrorType> = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['type'] extends T ? K : never;
}[ErrorCode];
