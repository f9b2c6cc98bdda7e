/**
 * A chat written with the AI SDK's `useChat`, running on Switchboard through `SwitchboardChatTransport`:
 * a streamed answer, tool parts with their approval buttons, stop, and a resume of the running turn
 * after a reload. The demo page shows it at `?view=use-chat`, on the same client as its hook view.
 */
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { type FormEvent, useState } from 'react';
import type { SwitchboardChatTransport } from '../ai-sdk/index.ts';

/** The props of {@link UseChatView}: the transport, the chat (the session's id) and its stored messages. */
export interface UseChatViewProps {
  transport: SwitchboardChatTransport;
  chatId: string;
  initialMessages: UIMessage[];
}

type ToolPart = Extract<UIMessage['parts'][number], { type: 'dynamic-tool' }>;

/** One tool part: its call, its approval buttons while it waits, its outcome once decided. */
function Tool({ part, respond }: { part: ToolPart; respond: (approved: boolean) => void }) {
  return (
    <div className="tool" data-state={part.state} data-tool={part.toolName}>
      <code>
        {part.toolName}({JSON.stringify(part.input)})
      </code>
      {part.state === 'approval-requested' && (
        <span>
          <button type="button" className="approve" onClick={() => respond(true)}>
            Approve
          </button>
          <button type="button" className="deny" onClick={() => respond(false)}>
            Deny
          </button>
        </span>
      )}
      {part.state === 'approval-responded' && (
        <span className="outcome">{part.approval.approved ? 'Approved' : 'Denied'}</span>
      )}
      {part.state === 'output-denied' && <span className="outcome">Denied</span>}
      {part.state === 'output-available' && <span className="outcome">{JSON.stringify(part.output)}</span>}
      {part.state === 'output-error' && <span className="outcome">{part.errorText}</span>}
    </div>
  );
}

/**
 * The chat view: the messages with their parts, a composer, and Stop while a turn streams.
 *
 * @example
 * ```tsx
 * <UseChatView transport={transport} chatId="support-42" initialMessages={await transport.loadMessages('support-42')} />
 * ```
 */
export function UseChatView({ transport, chatId, initialMessages }: UseChatViewProps) {
  const { messages, status, error, sendMessage, stop, addToolApprovalResponse } = useChat({
    id: chatId,
    messages: initialMessages,
    transport,
    resume: true,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  const busy = status === 'submitted' || status === 'streaming';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim()) return;
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main id="chat" className="panel" data-status={status} aria-label="Chat">
      <header>
        <h1>useChat</h1>
        <span className="grow">AI SDK, on SwitchboardChatTransport</span>
        <nav className="views">
          <a id="to-hook" href="/">
            Hook view
          </a>
        </nav>
      </header>
      <ol id="log">
        {messages.map((message) => (
          <li key={message.id} className={`msg ${message.role}`} data-id={message.id}>
            {message.parts.map((part, i) => {
              const key = `${message.id}-${i}`;
              if (part.type === 'text')
                return (
                  <p key={key} className="text">
                    {part.text}
                  </p>
                );
              if (part.type === 'dynamic-tool')
                return (
                  <Tool
                    key={key}
                    part={part}
                    respond={(approved) =>
                      part.state === 'approval-requested' &&
                      void addToolApprovalResponse({ id: part.approval.id, approved })
                    }
                  />
                );
              return null;
            })}
          </li>
        ))}
      </ol>
      {error && <p id="error">{error.message}</p>}
      <form onSubmit={submit}>
        <input
          id="message"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Type a message"
          aria-label="Message"
        />
        <button id="send" className="primary" type="submit" disabled={busy}>
          Send
        </button>
        <button id="stop" type="button" disabled={!busy} onClick={() => void stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}
