import { ERROR_CODES, type ErrorCode } from '../../errors/index.ts';
import type { HttpRouteKey } from '../routes.ts';

/** A code's HTTP status, as lib/errors answers it. */
export const statusOf = (code: ErrorCode): number => ERROR_CODES[code].status;

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
