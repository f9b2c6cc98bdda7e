/**
 * `switchboard/client`: the client SDK for hosts (browsers, Node and React Native). It has no
 * dependency and imports no Node built-in; the types it shares with the server are imported as types.
 *
 * @example
 * ```ts
 * import { createClient } from 'switchboard/client';
 *
 * const client = createClient({ url: 'http://127.0.0.1:3000', wsUrl: 'ws://127.0.0.1:3000/ws', token });
 * const session = client.session('s1', { agentId: 'demo' });
 * session.on('agent.message.delta', (e) => console.log(e.data.text));
 * const { run_id } = await session.send('hello');
 * await session.waitForTurn(run_id);
 * ```
 *
 * @module
 */

export type { ErrorCode, ErrorType } from '../lib/errors/codes.ts';
export {
  type Accepted,
  type AgentList,
  type AttachmentInput,
  type ClientOptions,
  type ClientToolHandler,
  type ClientToolHandlers,
  type ConnectionStatus,
  createClient,
  type EventsPage,
  type FeedbackRequest,
  type FileRecord,
  type HostActionHandler,
  type HostActionHandlers,
  type HostContextInput,
  type PendingAction,
  type RememberedTools,
  type ResolveRequest,
  type SendOptions,
  type SessionList,
  type SessionSummary,
  SwitchboardClient,
  type UploadBody,
} from './client.ts';
export {
  type ApiErrorCode,
  ArgsValidationError,
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  ClosedError,
  type Issue,
  SwitchboardApiError,
  TimeoutError,
} from './errors.ts';
export type {
  AnswerFile,
  ErrorFrame,
  EventDataMap,
  EventOf,
  EventsFrame,
  EventType,
  JoinedFrame,
  PendingToolCall,
  ServerFrame,
  SwitchboardEvent,
} from './events.ts';
export { checkJsonSchema, type JsonSchema } from './json-schema.ts';
export type { ResolveAccepted } from './session.ts';
export { Session, type SessionOptions } from './session.ts';
export type {
  AbortSignalLike,
  FetchLike,
  FetchResponse,
  Timers,
  WebSocketConstructor,
  WebSocketLike,
} from './transport.ts';
