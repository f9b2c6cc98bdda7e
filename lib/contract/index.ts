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
