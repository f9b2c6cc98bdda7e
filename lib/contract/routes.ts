/**
 * The API's route keys, as API Gateway spells them. The CDK stack declares these routes, the
 * sandbox's gateway matches them, and the handlers implement them: one list for all three.
 */
export const HTTP_ROUTES = [
  'GET /api/agents',
  'POST /api/chat',
  'GET /api/sessions',
  'GET /api/sessions/{id}',
  'GET /api/sessions/{id}/messages',
  'GET /api/sessions/{id}/events',
  'GET /api/sessions/{id}/events/{seq}',
  'POST /api/sessions/{id}/actions/{actionId}',
  'POST /api/sessions/{id}/cancel',
  'POST /api/sessions/{id}/continue',
  'DELETE /api/sessions/{id}',
  'POST /api/files',
  'GET /api/files/{id}',
  'DELETE /api/files/{id}',
  'POST /api/sessions/{id}/messages/{messageId}/feedback',
  'GET /api/sessions/{id}/export',
  'GET /api/sessions/{id}/messages/{messageId}/content',
  'GET /api/sessions/{id}/remembered-tools',
  'DELETE /api/sessions/{id}/remembered-tools/{name}',
] as const;
export type HttpRouteKey = (typeof HTTP_ROUTES)[number];

/**
 * Where a listed message too large for a page is read whole (its `content_ref`): the message as
 * `GET /api/sessions/{id}/messages` would show it, by the host's own session id.
 */
export const messageContentPath = (sessionId: string, messageId: string): string =>
  `/api/sessions/${encodeURIComponent(sessionId)}/messages/${encodeURIComponent(messageId)}/content`;

/** Where an event too large for a frame or a page is read whole (its `href`), by the host's own session id. */
export const eventPath = (sessionId: string, seq: number): string =>
  `/api/sessions/${encodeURIComponent(sessionId)}/events/${seq}`;

/** WebSocket action routes (besides `$connect`, `$disconnect` and `$default`), by `action`. */
export const WEBSOCKET_ROUTES = [
  'assistant_message',
  'assistant_join_session',
  'assistant_resolve_action',
  'assistant_cancel',
  'assistant_feedback',
  'assistant_continue',
] as const;
export type WebSocketRouteKey = (typeof WEBSOCKET_ROUTES)[number];

/**
 * What a request to the AG-UI endpoint (`POST /agui/{agentId}`) can ask: a new message or a frontend
 * tool's result (`run`), answers to interrupts (`resume`), or a run posted again after a lost stream
 * (`repost`, the same `runId`). Each is a door to a session, behind the same gate as the routes.
 */
export const AGUI_REQUESTS = ['run', 'resume', 'repost'] as const;
export type AguiRequestKey = (typeof AGUI_REQUESTS)[number];

/**
 * Every entry point that reaches a session or a file: the HTTP routes, the WebSocket actions and the
 * AG-UI requests. The access-matrix test is keyed by this list, so a door cannot be added without a
 * row that tries it as every kind of caller. (The export link and the upload URL are handed out only
 * by a route of this list, to the owner.)
 */
export type EntryPoint = HttpRouteKey | `ws ${WebSocketRouteKey}` | `agui ${AguiRequestKey}`;
// Marked pure: only tests read the list, and no function's bundle should carry it.
export const ENTRY_POINTS: readonly EntryPoint[] = /* @__PURE__ */ entryPoints();

function entryPoints(): EntryPoint[] {
  return [
    ...HTTP_ROUTES,
    ...WEBSOCKET_ROUTES.map((action) => `ws ${action}` as const),
    ...AGUI_REQUESTS.map((kind) => `agui ${kind}` as const),
  ];
}
