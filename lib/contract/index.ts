export {
  type Budget,
  BudgetSchema,
  type ModelPrice,
  ModelPriceSchema,
  type Pricing,
  PricingSchema,
} from './agent-pricing.ts';
export {
  AgentInfoSchema,
  type AgentSummary,
  AgentSummarySchema,
  CONTINUABLE_STOPS,
  type ContentPart,
  ContentPartSchema,
  type DocumentPart,
  DocumentPartSchema,
  type HostAgentInfo,
  type HostEvent,
  HostEventSchema,
  type HostResult,
  HostResultSchema,
  type ImagePart,
  ImagePartSchema,
  type PendingAction,
  PendingActionSchema,
  type StopReason,
  StopReasonSchema,
  SuggestionsSchema,
  type TextPart,
  TextPartSchema,
  type Usage,
  UsageSchema,
} from './agent-schemas.ts';
export type {
  AgentFileSettings,
  AnsweredRequest,
  BudgetLeft,
  ContinueTurnInput,
  FeedbackEvent,
  HistoryMessage,
  HitlOptions,
  HostAgentCancelInput,
  HostAgentDefinition,
  HostAgentFile,
  HostAgentFiles,
  HostAgentInput,
  HostAgentIO,
  HostAgentRegistration,
  HostTool,
  RequestContext,
  ResolveActionInput,
  ToolDefinition,
  TurnTools,
} from './agent-types.ts';
export {
  type Attachment,
  AttachmentSchema,
  collectAttachments,
  decodeDataUri,
  MAX_ATTACHMENT_CHARS,
  screenshotParts,
} from './attachments.ts';
export {
  AgentsQuerySchema,
  CHAT_JSON_BYTES,
  type ChatRequest,
  ChatRequestSchema,
  ContinueRequestSchema,
  EventSeqSchema,
  EventsQuerySchema,
  type JoinRequest,
  JoinRequestSchema,
  MessagesQuerySchema,
  parseChatRequest,
  parseContinueRequest,
  parseContinueTarget,
  parseHostContext,
  parseJoinRequest,
  parseResolveRequest,
  parseResolveTarget,
  parseSessionTarget,
  RequestIdSchema,
  type ResolveRequest,
  ResolveRequestSchema,
  ResolveTargetSchema,
  SessionsQuerySchema,
  SessionTargetSchema,
} from './chat.ts';
export { AGUI_CORS, type CorsConfig, type CorsMethod, FILE_BUCKET_CORS, HTTP_API_CORS } from './cors.ts';
export { Sha256Schema, UploadRequestSchema } from './files.ts';
export {
  HOST_CONTEXT_LIMITS,
  HOST_CONTEXT_VERSION,
  type HostAction,
  HostActionSchema,
  type HostContext,
  HostContextSchema,
  ToolNameSchema,
} from './host-context.ts';
export { ID_PATTERN, ID_RULE, IdSchema, isId, isSessionId, SESSION_ID_RULE, SessionIdSchema } from './ids.ts';
export {
  ANSWER_LIMITS,
  answerBytes,
  BODY_LIMITS,
  checkDepth,
  MAX_JSON_DEPTH,
  parseJsonBody,
  tooDeepAt,
} from './json-body.ts';
export {
  compiled,
  installJsonSchemaChecker,
  jsonSchemaProblem,
  jsonSchemasReady,
  objectSchemaProblem,
  whenJsonSchemasReady,
} from './json-schema.ts';
export { contentTypeOf, MediaTypeSchema, mediaTypeProblem } from './media-type.ts';
export {
  ExportQuerySchema,
  type FeedbackRequest,
  FeedbackRequestSchema,
  FeedbackTargetSchema,
  isMessageId,
  MessageIdSchema,
  parseFeedbackRequest,
  parseFeedbackTarget,
  type RewriteMode,
  RewriteModeSchema,
} from './messages.ts';
export { normalizeKeys, pathAsSent, snakeCase } from './normalize.ts';
export { type OnBusy, OnBusySchema, onBusyOf } from './on-busy.ts';
export { HOLD_TOOL, MAX_CHAT_WAIT_MS, type OutputMode, OutputModeSchema } from './output-mode.ts';
export {
  RememberedToolNameSchema,
  type RememberedTools,
  RememberedToolsSchema,
} from './remembered.ts';
export { renderHostContext } from './render.ts';
export {
  AGUI_REQUESTS,
  type AguiRequestKey,
  ENTRY_POINTS,
  type EntryPoint,
  eventPath,
  HTTP_ROUTES,
  type HttpRouteKey,
  messageContentPath,
  WEBSOCKET_ROUTES,
  type WebSocketRouteKey,
} from './routes.ts';
