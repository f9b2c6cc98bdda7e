/**
 * `switchboard/react`: a Switchboard conversation as React state, on the client SDK
 * (`switchboard/client`). React is a peer dependency; nothing here reaches the server's bundles.
 *
 * @example
 * ```tsx
 * import { useSwitchboardChat } from 'switchboard/react';
 *
 * const { messages, status, send } = useSwitchboardChat({ url, wsUrl, token, sessionId: 'support-42', agentId: 'support' });
 * ```
 *
 * @module
 */
export {
  applyEvent,
  type Conversation,
  type Draft,
  emptyConversation,
  messagesOf,
  withFiles,
} from './messages.ts';
export { type ChatCommands, type ChatConfig, type ChatSnapshot, ChatStore, chatStore } from './store.ts';
export type {
  ApprovalRequest,
  ChatMessage,
  ChatPart,
  ChatState,
  ChatStatus,
  ClientToolRequest,
  FilePart,
  HostActionOption,
  HostActionPart,
  HostActionRequest,
  PendingRequest,
  QuestionRequest,
  RequestPart,
  SwitchboardChat,
  TextPart,
  ToolPart,
  TurnError,
  UseSwitchboardChatOptions,
  WarningPart,
} from './types.ts';
export { useSwitchboardChat } from './use-switchboard-chat.ts';
