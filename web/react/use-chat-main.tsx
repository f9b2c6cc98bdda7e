/**
 * The entry of the `useChat` page: the chat (`?chat=`) and agent (`?agent=`) from the address, so a
 * reload keeps them; the stored messages first, then the view, which resumes a turn that still runs.
 */
import { createRoot } from 'react-dom/client';
import { SwitchboardChatTransport } from '../../client/ai-sdk.ts';
import { UseChatView } from './use-chat-view.tsx';

const params = new URLSearchParams(location.search);
const chatId = params.get('chat') ?? `chat-${Date.now().toString(36)}`;
const transport = new SwitchboardChatTransport({
  url: location.origin,
  wsUrl: `${location.origin.replace(/^http/, 'ws')}/ws`,
  agentId: params.get('agent') ?? 'demo',
});
const initialMessages = await transport.loadMessages(chatId);
createRoot(document.getElementById('root')!).render(
  <UseChatView transport={transport} chatId={chatId} initialMessages={initialMessages} />,
);
