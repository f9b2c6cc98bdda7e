/**
 * `switchboard/ai-sdk`: a `ChatTransport` for the AI SDK, so an app written with `useChat` (or the
 * SDK's `Chat`) runs on Switchboard unchanged. It rides on the client (`switchboard/client`): one
 * WebSocket, the seq rule, reconnects and resumes. It imports only types from `ai`, so `ai` stays an
 * optional peer dependency and nothing of it is bundled twice.
 *
 * @example
 * ```tsx
 * import { useChat } from '@ai-sdk/react';
 * import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
 * import { SwitchboardChatTransport } from 'switchboard/ai-sdk';
 *
 * const transport = new SwitchboardChatTransport({ url: API_URL, wsUrl: WS_URL, token: getToken, agentId: 'support' });
 * const chat = useChat({ id: conversationId, transport, resume: true, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
 * ```
 *
 * @module
 */

export type { TurnErrorData, TurnWarningData } from './messages.ts';
export type { SwitchboardChatTransportOptions, SwitchboardMessageMetadata } from './options.ts';
export { SwitchboardChatTransport } from './transport.ts';
