/**
 * A chat written with the AI SDK's `useChat`, running on Switchboard through `SwitchboardChatTransport`:
 * the agent's name and suggested prompts, a streamed answer, tool parts with their approval buttons,
 * the page's client tools answered (`onToolCall`, `addToolOutput`), questions answered with their
 * options, regenerate, stop, and a resume of the running turn after a reload. The demo page shows it
 * at `?view=use-chat`, on the same client as its hook view. What `useChat` cannot carry is listed in
 * docs/hosts.md.
 */
import { useChat } from '@ai-sdk/react';
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { type FormEvent, useEffect, useState } from 'react';
import type { SwitchboardChatTransport } from '../ai-sdk/index.ts';
import type { PendingAction } from '../client/index.ts';
import { CLIENT_TOOLS } from './client-tools.ts';

/** The props of {@link UseChatView}: the transport, the chat (the session's id) and its stored messages. */
export interface UseChatViewProps {
  transport: SwitchboardChatTransport;
  chatId: string;
  initialMessages: UIMessage[];
  /** The agent a new chat goes to (`?agent=`), else the server's default one. */
  agentId?: string;
  /** Whether the chat may have a turn running to resume: false for a chat this page just made (nothing to fetch). */
  resume?: boolean;
}

/** A question the agent asked, as the transport's data part carries it: open, then answered. */
interface RequestData {
  action?: PendingAction;
  status?: string;
  resolution?: { answers?: unknown };
}

/** A question: its options as buttons while it is open, its answer once given. */
function Question({ data, answer }: { data: RequestData; answer: (label: string) => void }) {
  const [sent, setSent] = useState(false);
  if (data.status !== 'open' || !data.action) {
    const answers = data.resolution?.answers;
    const shown = Array.isArray(answers)
      ? answers.join(', ')
      : answers
        ? JSON.stringify(answers)
        : data.status;
    return <div className="card user_question settled">Answered: {shown}</div>;
  }
  return (
    <div className="card user_question" data-action-id={data.action.id}>
      <span className="kind">Question</span>
      {(data.action.questions ?? []).map((question) => (
        <div key={question.question} className="question">
          <strong>{question.question}</strong>
          <div className="buttons">
            {(question.options ?? []).map((option) => (
              <button
                key={option.label}
                type="button"
                className="option"
                disabled={sent}
                onClick={() => {
                  setSent(true);
                  answer(option.label);
                }}
              >
                {option.label}
              </button>
            ))}
          </div>
        </div>
      ))}
    </div>
  );
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
export function UseChatView({
  transport,
  chatId,
  initialMessages,
  agentId,
  resume = true,
}: UseChatViewProps) {
  const {
    messages,
    status,
    error,
    sendMessage,
    stop,
    regenerate,
    resumeStream,
    addToolApprovalResponse,
    addToolOutput,
  } = useChat({
    id: chatId,
    messages: initialMessages,
    transport,
    resume,
    // A client tool this page has is answered at once; the answer goes with the next request.
    onToolCall: ({ toolCall }) => {
      const run = CLIENT_TOOLS[toolCall.toolName];
      if (run)
        void addToolOutput({ tool: toolCall.toolName, toolCallId: toolCall.toolCallId, output: run() });
    },
    sendAutomaticallyWhen: (options) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
      lastAssistantMessageIsCompleteWithToolCalls(options),
  });
  const [input, setInput] = useState('');
  const [agent, setAgent] = useState<{ name?: string; suggestions?: string[] }>();
  useEffect(() => {
    void transport.client.agents().then(
      ({ agents, default_agent_id }) => setAgent(agents.find((a) => a.id === (agentId ?? default_agent_id))),
      () => setAgent(undefined),
    );
  }, [transport, agentId]);
  const busy = status === 'submitted' || status === 'streaming';
  // A question has no AI SDK part: it is answered with the client, and the chat follows the answer's run.
  const answerQuestion = (actionId: string, label: string) =>
    void transport.client
      .session(chatId)
      .answerQuestion(actionId, [label])
      .then(() => resumeStream());
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim()) return;
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main id="chat" className="panel" data-status={status} aria-label="Chat">
      <header>
        <h1>{agent?.name ?? 'useChat'}</h1>
        <span className="grow">AI SDK useChat, on SwitchboardChatTransport</span>
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
              if (part.type === 'data-switchboard-request')
                return (
                  <Question
                    key={key}
                    data={part.data as RequestData}
                    answer={(label) => answerQuestion((part as { id?: string }).id ?? '', label)}
                  />
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
            {message === lastAssistant && status === 'ready' && (
              <button type="button" className="regenerate" onClick={() => void regenerate()}>
                Regenerate
              </button>
            )}
          </li>
        ))}
      </ol>
      {error && <p id="error">{error.message}</p>}
      {messages.length === 0 && (agent?.suggestions?.length ?? 0) > 0 && (
        <div id="suggestions">
          {agent?.suggestions?.map((text) => (
            <button
              key={text}
              type="button"
              className="suggestion"
              onClick={() => void sendMessage({ text })}
            >
              {text}
            </button>
          ))}
        </div>
      )}
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
