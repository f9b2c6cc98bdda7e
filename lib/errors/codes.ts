/** Where an error belongs, for a WebSocket `assistant:error` frame's `error.type`. */
export const ERROR_TYPES = ['validation', 'session', 'not_found', 'auth', 'limit', 'internal'] as const;

/** One of {@link ERROR_TYPES}. */
export type ErrorType = (typeof ERROR_TYPES)[number];

/**
 * Every code Switchboard answers a caller with, and what it answers with: the HTTP status and the
 * WebSocket `error.type`. The one list of codes: an error is made with one of its keys and the status
 * and type of its entry (lib/errors/errors.ts checks both at compile time), and the OpenAPI document
 * and docs/protocol.md's error table are written from it, with each code's words from
 * lib/documents/errors.ts (which must have one for every code). So a code cannot be thrown without
 * being documented. The order is the table's within one status.
 *
 * Besides the errors thrown, the map lists the codes an answer carries without a throw: a run
 * record's error (`job_lost`), an answer that waited on a lost turn (`worker_lost`) and the AG-UI
 * stream's `RUN_ERROR` (`session_deleted`, `stream_failed`, `stream_timeout`), whose status is the one
 * an HTTP answer would have had. test/unit/answer-codes.test.ts fails on a code literal in lib/ that
 * the map does not list.
 *
 * The error classes read none of it at run time (each states its status and type, checked against
 * this map); only {@link isErrorCode} does, where a code read back from the log is answered again.
 */
export const ERROR_CODES = {
  invalid_json: [400, 'validation'],
  unauthorized: [401, 'auth'],
  invalid_token: [401, 'auth'],
  budget_exceeded: [402, 'limit'],
  tenant_suspended: [403, 'auth'],
  forbidden: [403, 'auth'],
  session_not_found: [404, 'not_found'],
  session_deleted: [404, 'not_found'],
  agent_not_found: [404, 'not_found'],
  route_not_found: [404, 'not_found'],
  file_not_found: [404, 'not_found'],
  message_not_found: [404, 'not_found'],
  event_not_found: [404, 'not_found'],
  tool_not_remembered: [404, 'not_found'],
  action_not_found: [404, 'not_found'],
  resolve_not_supported: [404, 'not_found'],
  agent_mismatch: [409, 'session'],
  session_busy: [409, 'session'],
  not_newest_answer: [409, 'session'],
  message_replaced: [409, 'session'],
  not_pending: [409, 'session'],
  not_a_host_call: [409, 'session'],
  already_resolved: [409, 'session'],
  withdrawn: [409, 'session'],
  superseded: [409, 'session'],
  action_expired: [409, 'session'],
  not_an_answer: [409, 'session'],
  nothing_to_cancel: [409, 'session'],
  nothing_to_continue: [409, 'session'],
  file_too_large: [413, 'validation'],
  file_quota_exceeded: [413, 'validation'],
  payload_too_large: [413, 'validation'],
  unsupported_media_type: [415, 'validation'],
  validation_error: [422, 'validation'],
  too_deep: [422, 'validation'],
  unknown_action: [422, 'validation'],
  rate_limited: [429, 'limit'],
  internal_error: [500, 'internal'],
  invalid_context: [500, 'internal'],
  invalid_host_result: [500, 'internal'],
  agent_unavailable: [500, 'internal'],
  agent_error: [500, 'internal'],
  feedback_failed: [500, 'internal'],
  invalid_decision: [500, 'internal'],
  worker_lost: [500, 'internal'],
  job_lost: [500, 'internal'],
  stream_failed: [500, 'internal'],
  model_error: [502, 'internal'],
  service_busy: [503, 'internal'],
  stream_timeout: [504, 'internal'],
} as const satisfies Record<string, readonly [status: number, type: ErrorType]>;

/** A code Switchboard answers with: one of {@link ERROR_CODES}' keys, so an unlisted one fails to compile. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status code `C` answers with (a union for a union of codes). */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C][0];

/** The WebSocket `error.type` code `C` answers with. */
export type TypeOf<C extends ErrorCode> = (typeof ERROR_CODES)[C][1];

/**
 * The codes answered with HTTP status `S` and WebSocket type `T`, and only those: what a class of
 * one status and type may be made with, so that none of its codes is answered otherwise than the
 * map says.
 */
export type CodeOf<S extends number, T extends ErrorType> = {
  [C in ErrorCode]: (typeof ERROR_CODES)[C] extends readonly [S, T] ? C : never;
}[ErrorCode];

/**
 * Whether `code` is one of {@link ERROR_CODES}: for a code read back from the session's log (written
 * from an error's code, so always one of them, unless an older version wrote it) before it is
 * answered again.
 */
export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERROR_CODES, code);
