import { describe, expect, it } from 'vitest';
import { ERROR_DESCRIPTIONS } from '../../lib/documents/errors.ts';
import {
  AgentFailedError,
  AgentNotFoundError,
  AgentUnavailableError,
  BudgetExceededError,
  ERROR_CODES,
  FeedbackHookError,
  ForbiddenError,
  InternalError,
  InvalidContextError,
  InvalidDecisionError,
  InvalidHostResultError,
  InvalidTokenError,
  MalformedRequestError,
  MessageNotFoundError,
  ModelEndpointError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  SessionBusyError,
  SessionConflictError,
  SessionNotFoundError,
  SwitchboardError,
  TenantSuspendedError,
  TooDeepError,
  UnauthorizedError,
  UnprocessedItemsError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../lib/errors/index.ts';

/**
 * Every code a caller can be answered, with the HTTP status and the WebSocket error type it has
 * been answered with since before the codes were typed. A change here changes what clients see:
 * it is a change of the API, never a side effect of a refactor.
 */
const PINNED: Record<string, { status: number; type: string }> = {
  invalid_json: { status: 400, type: 'validation' },
  unauthorized: { status: 401, type: 'auth' },
  invalid_token: { status: 401, type: 'auth' },
  budget_exceeded: { status: 402, type: 'limit' },
  forbidden: { status: 403, type: 'auth' },
  tenant_suspended: { status: 403, type: 'auth' },
  session_not_found: { status: 404, type: 'not_found' },
  // The end of an AG-UI stream whose session was deleted (RUN_ERROR).
  session_deleted: { status: 404, type: 'not_found' },
  agent_not_found: { status: 404, type: 'not_found' },
  route_not_found: { status: 404, type: 'not_found' },
  file_not_found: { status: 404, type: 'not_found' },
  action_not_found: { status: 404, type: 'not_found' },
  message_not_found: { status: 404, type: 'not_found' },
  event_not_found: { status: 404, type: 'not_found' },
  tool_not_remembered: { status: 404, type: 'not_found' },
  resolve_not_supported: { status: 404, type: 'not_found' },
  agent_mismatch: { status: 409, type: 'session' },
  session_busy: { status: 409, type: 'session' },
  not_newest_answer: { status: 409, type: 'session' },
  message_replaced: { status: 409, type: 'session' },
  not_pending: { status: 409, type: 'session' },
  not_a_host_call: { status: 409, type: 'session' },
  already_resolved: { status: 409, type: 'session' },
  withdrawn: { status: 409, type: 'session' },
  superseded: { status: 409, type: 'session' },
  action_expired: { status: 409, type: 'session' },
  not_an_answer: { status: 409, type: 'session' },
  nothing_to_cancel: { status: 409, type: 'session' },
  nothing_to_continue: { status: 409, type: 'session' },
  file_too_large: { status: 413, type: 'validation' },
  file_quota_exceeded: { status: 413, type: 'validation' },
  payload_too_large: { status: 413, type: 'validation' },
  unsupported_media_type: { status: 415, type: 'validation' },
  validation_error: { status: 422, type: 'validation' },
  too_deep: { status: 422, type: 'validation' },
  unknown_action: { status: 422, type: 'validation' },
  rate_limited: { status: 429, type: 'limit' },
  internal_error: { status: 500, type: 'internal' },
  invalid_context: { status: 500, type: 'internal' },
  invalid_host_result: { status: 500, type: 'internal' },
  agent_unavailable: { status: 500, type: 'internal' },
  agent_error: { status: 500, type: 'internal' },
  feedback_failed: { status: 500, type: 'internal' },
  invalid_decision: { status: 500, type: 'internal' },
  // Recorded on a turn the worker lost, and answered so to a POST /api/chat that waited on it.
  worker_lost: { status: 500, type: 'internal' },
  // A run given up on before any worker claimed it: the run's error.
  job_lost: { status: 500, type: 'internal' },
  // An AG-UI stream that could not go on, or reached its time limit (RUN_ERROR).
  stream_failed: { status: 500, type: 'internal' },
  model_error: { status: 502, type: 'internal' },
  service_busy: { status: 503, type: 'internal' },
  stream_timeout: { status: 504, type: 'internal' },
};

/** The codes an answer carries without an error thrown: a run's record, a waited-on turn, an AG-UI stream. */
const NOT_THROWN = ['worker_lost', 'job_lost', 'session_deleted', 'stream_failed', 'stream_timeout'];

/** One error of every code, made the way the throw sites make it. */
const MADE: SwitchboardError[] = [
  new MalformedRequestError(''),
  new UnauthorizedError(),
  new InvalidTokenError(''),
  new BudgetExceededError('session', 0, 0),
  new ForbiddenError(''),
  new TenantSuspendedError(''),
  new SessionNotFoundError(''),
  new AgentNotFoundError(''),
  new NotFoundError('route_not_found', ''),
  new NotFoundError('file_not_found', ''),
  new NotFoundError('action_not_found', ''),
  new NotFoundError('event_not_found', ''),
  new NotFoundError('tool_not_remembered', ''),
  new MessageNotFoundError(''),
  new NotFoundError('resolve_not_supported', ''),
  new SessionConflictError('agent_mismatch', ''),
  new SessionBusyError('', ''),
  ...(
    [
      'not_newest_answer',
      'message_replaced',
      'not_pending',
      'not_a_host_call',
      'already_resolved',
      'withdrawn',
      'superseded',
      'action_expired',
      'not_an_answer',
      'nothing_to_cancel',
      'nothing_to_continue',
    ] as const
  ).map((code) => new SessionConflictError(code, '')),
  new PayloadTooLargeError('file_too_large', ''),
  new PayloadTooLargeError('file_quota_exceeded', ''),
  new PayloadTooLargeError('payload_too_large', ''),
  new UnsupportedMediaTypeError(''),
  new ValidationError(''),
  new TooDeepError(''),
  new ValidationError('', [], 'unknown_action'),
  new RateLimitedError('', 0),
  new InternalError(),
  new InvalidContextError(''),
  new InvalidHostResultError(''),
  new AgentUnavailableError(''),
  new AgentFailedError(),
  new FeedbackHookError('feedback'),
  new InvalidDecisionError(2),
  new ModelEndpointError(''),
  new UnprocessedItemsError(1),
];

describe('error codes', () => {
  it('answer with the status and WebSocket type each has always had', () => {
    const thrown = Object.fromEntries(Object.entries(PINNED).filter(([code]) => !NOT_THROWN.includes(code)));
    const made = Object.fromEntries(MADE.map((e) => [e.code, { status: e.status, type: e.type }]));
    expect(made).toEqual(thrown);
  });

  it('are the map lib/errors answers by, and nothing else, each with its words in the documents', () => {
    const map = Object.fromEntries(
      Object.entries(ERROR_CODES).map(([code, [status, type]]) => [code, { status, type }]),
    );
    expect(map).toEqual(PINNED);
    expect(Object.keys(ERROR_DESCRIPTIONS)).toEqual(Object.keys(ERROR_CODES));
    for (const words of Object.values(ERROR_DESCRIPTIONS)) expect(words).not.toBe('');
  });

  it('cannot be made with a code the map does not list, nor with another status or type than its own', () => {
    // Checked by the compiler: the functions are never called.
    const refused = [
      // @ts-expect-error: a code outside the map fails to compile.
      () => new NotFoundError('no_such_code', ''),
      // @ts-expect-error: a 404 class refuses a 409 code.
      () => new NotFoundError('agent_mismatch', ''),
      // @ts-expect-error: a 409 class refuses a 404 code.
      () => new SessionConflictError('session_not_found', ''),
      // @ts-expect-error: a 422 validation error refuses a validation code of another status.
      () => new ValidationError('', [], 'invalid_json'),
      // @ts-expect-error: a validation error refuses a code of another type.
      () => new ValidationError('', [], 'rate_limited'),
      // @ts-expect-error: a code made with another status than the map's.
      () => new SwitchboardError('route_not_found', '', 400, 'not_found'),
      // @ts-expect-error: a code made with another WebSocket type than the map's.
      () => new SwitchboardError('rate_limited', '', 429, 'validation'),
      // @ts-expect-error: a code outside the map, even on the base class.
      () => new SwitchboardError('teapot', '', 418, 'internal'),
    ];
    expect(refused).toHaveLength(8);
  });
});
