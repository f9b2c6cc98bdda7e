import type { HttpRouteKey } from '../contract/routes.ts';
import {
  AgentNotFoundError,
  BudgetExceededError,
  FeedbackHookError,
  ForbiddenError,
  InternalError,
  InvalidContextError,
  InvalidTokenError,
  MalformedRequestError,
  MessageNotFoundError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  SessionBusyError,
  SessionConflictError,
  SessionNotFoundError,
  type SwitchboardError,
  TenantSuspendedError,
  TooDeepError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors/index.ts';

/**
 * The error codes the HTTP routes answer, each made by its class of lib/errors so that its status
 * is the class's own.
 */
const ERRORS = {
  invalid_json: new MalformedRequestError(''),
  unauthorized: new UnauthorizedError(),
  invalid_token: new InvalidTokenError(''),
  budget_exceeded: new BudgetExceededError('session', 0, 0),
  forbidden: new ForbiddenError(''),
  tenant_suspended: new TenantSuspendedError(''),
  session_not_found: new SessionNotFoundError(''),
  agent_not_found: new AgentNotFoundError(''),
  message_not_found: new MessageNotFoundError(''),
  file_not_found: new NotFoundError('file_not_found', ''),
  action_not_found: new NotFoundError('action_not_found', ''),
  resolve_not_supported: new NotFoundError('resolve_not_supported', ''),
  agent_mismatch: new SessionConflictError('agent_mismatch', ''),
  session_busy: new SessionBusyError('', ''),
  not_newest_answer: new SessionConflictError('not_newest_answer', ''),
  message_replaced: new SessionConflictError('message_replaced', ''),
  not_pending: new SessionConflictError('not_pending', ''),
  not_a_host_call: new SessionConflictError('not_a_host_call', ''),
  already_resolved: new SessionConflictError('already_resolved', ''),
  withdrawn: new SessionConflictError('withdrawn', ''),
  superseded: new SessionConflictError('superseded', ''),
  action_expired: new SessionConflictError('action_expired', ''),
  not_an_answer: new SessionConflictError('not_an_answer', ''),
  nothing_to_cancel: new SessionConflictError('nothing_to_cancel', ''),
  payload_too_large: new PayloadTooLargeError('payload_too_large', ''),
  file_too_large: new PayloadTooLargeError('file_too_large', ''),
  file_quota_exceeded: new PayloadTooLargeError('file_quota_exceeded', ''),
  unsupported_media_type: new UnsupportedMediaTypeError(''),
  validation_error: new ValidationError(''),
  too_deep: new TooDeepError(''),
  rate_limited: new RateLimitedError('', 0),
  internal_error: new InternalError(),
  invalid_context: new InvalidContextError(''),
  feedback_failed: new FeedbackHookError('feedback'),
} satisfies Record<string, SwitchboardError>;

export type ErrorCode = keyof typeof ERRORS;

/** A code's HTTP status. */
export const statusOf = (code: ErrorCode): number => ERRORS[code].status;

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
