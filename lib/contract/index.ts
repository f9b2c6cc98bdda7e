export {
  type ChatRequest,
  ChatRequestSchema,
  EventsQuerySchema,
  type JoinRequest,
  JoinRequestSchema,
  parseChatRequest,
  parseJoinRequest,
  parseJsonBody,
  RequestIdSchema,
  SessionIdSchema,
} from './chat.ts';
export { HTTP_ROUTES, type HttpRouteKey, WEBSOCKET_ROUTES, type WebSocketRouteKey } from './routes.ts';
