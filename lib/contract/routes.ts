/**
 * The API's route keys, as API Gateway spells them. The CDK stack declares these routes, the
 * sandbox's gateway matches them, and the handlers implement them: one list for all three.
 */
export const HTTP_ROUTES = [
  'POST /api/chat',
  'GET /api/sessions',
  'GET /api/sessions/{id}',
  'GET /api/sessions/{id}/messages',
  'GET /api/sessions/{id}/events',
  'POST /api/sessions/{id}/actions/{actionId}',
  'POST /api/sessions/{id}/cancel',
  'DELETE /api/sessions/{id}',
  'POST /api/files',
  'GET /api/files/{id}',
  'DELETE /api/files/{id}',
  'POST /api/sessions/{id}/messages/{messageId}/feedback',
  'GET /api/sessions/{id}/export',
] as const;
export type HttpRouteKey = (typeof HTTP_ROUTES)[number];

/** WebSocket action routes (besides `$connect`, `$disconnect` and `$default`), by `action`. */
export const WEBSOCKET_ROUTES = [
  'assistant_message',
  'assistant_join_session',
  'assistant_resolve_action',
  'assistant_cancel',
  'assistant_feedback',
] as const;
export type WebSocketRouteKey = (typeof WEBSOCKET_ROUTES)[number];
