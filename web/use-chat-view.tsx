/**
 * A chat written with the AI SDK's `useChat`, running on Switchboard through `SwitchboardChatTransport`:
 * the agent's name and suggested prompts, a streamed answer, tool parts with their approval buttons,
 * the page's client tools answered (`onToolCall`, `addToolOutput`), questions answered with their
 * options, files attached (uploaded with the client, sent as file parts), an edit of a sent message
 * with its files, ratings and regenerate under an ended answer, stop, and a resume of the running
 * turn after a reload. The demo page shows it at `?view=use-chat`, on the same client as its hook
 * view, and either view opens the other's session. What `useChat` cannot carry is listed in
 * docs/hosts.md.
 */
import { useChat } from '@ai-sdk/react';
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { type ChangeEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import type {
  SwitchboardChatTransport,
  SwitchboardMessageMetadata,
  TurnErrorData,
  TurnWarningData,
} from '../ai-sdk/index.ts';
import type { PendingAction } from '../client/index.ts';
import type { HostActionOption } from '../react/index.ts';
import { useFollow } from '../react-dom/chat.tsx';
import { AnswerControls, MessageEditor, useEditing } from '../react-dom/messages.tsx';
import { CLIENT_TOOLS } from './client-tools.ts';

type FilePart = Extract<UIMessage['parts'][number], { type: 'file' }>;

/** The Switchboard file a file part names (its `providerReference`), as the transport sends it. */
const fileIdOf = (part: FilePart) => part.providerReference?.switchboard ?? '';

/** What a refused request says. */
const describe = (error: unknown) => {
  const { code, message } = error as { code?: string; message?: string };
  return code ? `${code}: ${message}` : String(message ?? error);
};

/** The props of {@link UseChatView}: the transport, the chat (the session's id) and its stored messages. */
export interface UseChatViewProps {
  transport: SwitchboardChatTransport;
  chatId: string;
  initialMessages: UIMessage[];
  /** The agent a new chat goes to (`?agent=`), else the server's default one. */
  agentId?: string;
  /** Whether the chat may have a turn running to resume: false for a chat this page just made (nothing to fetch). */
  resume?: boolean;
  /** The page's host actions, by name: a call of one is answered with its handler's result. */
  actions?: Record<string, HostActionOption>;
}

/** A question the agent asked, as the transport's data part carries it: open, then answered. */
interface RequestData {
  action?: PendingAction;
  status?: string;
  resolution?: { answers?: unknown };
}

/** A question: its options as buttons while it is open, its answer once given. */
function Question({
  data,
  answer,
  waiting,
}: {
  data: RequestData;
  answer: (label: string) => void;
  waiting: boolean;
}) {
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
                disabled={sent || waiting}
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
function Tool({
  part,
  respond,
  waiting,
}: {
  part: ToolPart;
  respond: (approved: boolean) => void;
  waiting: boolean;
}) {
  return (
    <div className="tool" data-state={part.state} data-tool={part.toolName}>
      <code>
        {part.toolName}({JSON.stringify(part.input)})
      </code>
      {part.state === 'approval-requested' && (
        <span>
          <button type="button" className="approve" disabled={waiting} onClick={() => respond(true)}>
            Approve
          </button>
          <button type="button" className="deny" disabled={waiting} onClick={() => respond(false)}>
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

/** Whether a message waits on nothing: no approval, tool call or question is still open. */
const waitsOnNothing = (message: UIMessage) =>
  !message.parts.some(
    (part) =>
      (part.type === 'dynamic-tool' &&
        (part.state === 'input-streaming' ||
          part.state === 'input-available' ||
          part.state === 'approval-requested')) ||
      (part.type === 'data-switchboard-request' && (part.data as RequestData).status === 'open'),
  );

/** The files a message was sent with, each with its Switchboard id. */
function Files({ files }: { files: FilePart[] }) {
  return (
    <>
      {files.map((file) => (
        <span key={fileIdOf(file) || file.url} className="file" data-file-id={fileIdOf(file)}>
          📎 {file.filename}
        </span>
      ))}
    </>
  );
}

/**
 * A user message: its text and files, and Edit. Edit opens it in a field: Resend sends it changed (the
 * same message, by its id: the transport makes it Switchboard's edit), with the files left ticked;
 * Cancel (or Escape) leaves it as it was.
 */
function UserMessage({
  message,
  busy,
  resend,
}: {
  message: UIMessage;
  busy: boolean;
  resend: (text: string, files: FilePart[]) => void;
}) {
  const { editing, editButton, open, close } = useEditing();
  const text = message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
  const files = message.parts.filter((part): part is FilePart => part.type === 'file');
  if (editing)
    return (
      <li className="msg user editing" data-id={message.id}>
        <MessageEditor
          text={text}
          files={files.map((file) => ({ id: fileIdOf(file), name: file.filename ?? fileIdOf(file) }))}
          onCancel={close}
          onResend={(content, kept) => {
            close(false);
            resend(
              content,
              files.filter((file) => kept.includes(fileIdOf(file))),
            );
          }}
        />
      </li>
    );
  return (
    <li className="msg user" data-id={message.id}>
      <p className="text">{text}</p>
      <Files files={files} />
      <div className="controls user-controls">
        <button type="button" className="small edit" ref={editButton} disabled={busy} onClick={open}>
          Edit
        </button>
      </div>
    </li>
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
  actions,
}: UseChatViewProps) {
  // useChat keeps its first callbacks: they read the page's latest actions here.
  const actionsNow = useRef(actions);
  actionsNow.current = actions;
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
    // A client tool or a host action this page has is answered at once; the answer goes with the
    // next request. A handler that throws answers with its error.
    onToolCall: async ({ toolCall }) => {
      const { toolName: tool, toolCallId } = toolCall;
      const action = actionsNow.current?.[tool];
      const handler = typeof action === 'function' ? action : action?.handler;
      const context = { session: transport.client.session(chatId), callId: toolCallId, toolName: tool };
      const run = CLIENT_TOOLS[tool] ?? (handler && ((input: unknown) => handler(input, context)));
      if (!run) return;
      try {
        void addToolOutput({ tool, toolCallId, output: await run(toolCall.input) });
      } catch (failure) {
        void addToolOutput({
          tool,
          toolCallId,
          state: 'output-error',
          errorText: String((failure as Error).message),
        });
      }
    },
    sendAutomaticallyWhen: (options) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
      lastAssistantMessageIsCompleteWithToolCalls(options),
  });
  const [input, setInput] = useState('');
  const [files, setFiles] = useState<FilePart[]>([]);
  // The log follows the conversation down, as the hook view's does.
  const { log, onScroll, followAgain } = useFollow<HTMLOListElement>([messages, error, status]);
  const [problem, setProblem] = useState<string>();
  // The ratings given on this page; the others are the stored ones (`metadata.rating`).
  const [ratings, setRatings] = useState<Record<string, 'up' | 'down' | null>>({});
  const [agent, setAgent] = useState<{ name?: string; suggestions?: string[] }>();
  useEffect(() => {
    void transport.client.agents().then(
      ({ agents, default_agent_id }) => setAgent(agents.find((a) => a.id === (agentId ?? default_agent_id))),
      () => setAgent(undefined),
    );
  }, [transport, agentId]);
  const busy = status === 'submitted' || status === 'streaming';
  // The view resumes the chat itself (not `resume: true`), to know when the resume has settled: until
  // then the loaded answer may still be replaced by its replay, so nothing of it is answered before,
  // and the page says "resuming".
  const [resumed, setResumed] = useState(!resume);
  useEffect(() => {
    if (resume) void resumeStream().finally(() => setResumed(true));
  }, [resume, resumeStream]);
  const waiting = busy || !resumed;
  // A question has no AI SDK part: it is answered with the client, and the chat follows the answer's run.
  const answerQuestion = (actionId: string, label: string) =>
    void transport.client
      .session(chatId)
      .answerQuestion(actionId, [label])
      .then(() => resumeStream());
  const lastAssistant = messages.findLast((m) => m.role === 'assistant');
  // An answer has ended when it streams no more and waits on nothing.
  /** Whether a turn's error is in the answer: a failed turn has nothing stored to rate. */
  const failed = (message: UIMessage) => message.parts.some((part) => part.type === 'data-switchboard-error');
  const ended = (message: UIMessage) =>
    !(waiting && message === messages.at(-1)) && waitsOnNothing(message) && !failed(message);
  const ratingOf = (message: UIMessage) =>
    message.id in ratings
      ? (ratings[message.id] ?? null)
      : ((message.metadata as SwitchboardMessageMetadata | undefined)?.rating ?? null);
  // A rating has no AI SDK API: it goes to Switchboard with the client, by the answer's Switchboard id.
  const rate = (message: UIMessage, next: 'up' | 'down' | null) => {
    const had = ratingOf(message);
    setRatings((before) => ({ ...before, [message.id]: next }));
    transport.client
      .session(chatId)
      .feedback(message.id, next)
      .then(
        () => setProblem(undefined),
        (failure) => {
          setRatings((before) => ({ ...before, [message.id]: had }));
          setProblem(describe(failure));
        },
      );
  };
  const attach = async (event: ChangeEvent<HTMLInputElement>) => {
    const field = event.currentTarget;
    const file = field.files?.[0];
    field.value = '';
    if (!file) return;
    try {
      const part = transport.filePart(await transport.client.upload(file));
      setFiles((before) => [...before, part]);
      setProblem(undefined);
    } catch (failure) {
      setProblem(describe(failure));
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    followAgain();
    const text = input.trim();
    if (!text && files.length === 0) return;
    void sendMessage({ text: text || 'What is in the file I attached?', files });
    setInput('');
    setFiles([]);
  };
  return (
    <main id="chat" className="sb-chat" data-status={resumed ? status : 'resuming'} aria-label="Chat">
      <header className="sb-header">
        <h1 className="sb-title">{agent?.name ?? 'useChat'}</h1>
        <span className="sb-activity">AI SDK useChat, on SwitchboardChatTransport</span>
        <nav className="views">
          <a
            id="to-hook"
            href={agentId ? `/?agent=${encodeURIComponent(agentId)}` : '/'}
            // The hook view shows the session its tab keeps: this chat's.
            onClick={() => sessionStorage.setItem('switchboard-session', chatId)}
          >
            Hook view
          </a>
        </nav>
      </header>
      <ol id="log" className="sb-log" ref={log} onScroll={onScroll}>
        {messages.map((message) =>
          message.role === 'user' ? (
            <UserMessage
              key={message.id}
              message={message}
              busy={waiting}
              resend={(text, kept) => void sendMessage({ messageId: message.id, text, files: kept })}
            />
          ) : (
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
                      waiting={waiting}
                      answer={(label) => answerQuestion((part as { id?: string }).id ?? '', label)}
                    />
                  );
                if (part.type === 'dynamic-tool')
                  return (
                    <Tool
                      key={key}
                      part={part}
                      waiting={waiting}
                      respond={(approved) =>
                        part.state === 'approval-requested' &&
                        void addToolApprovalResponse({ id: part.approval.id, approved })
                      }
                    />
                  );
                if (part.type === 'file') return <Files key={key} files={[part]} />;
                if (part.type === 'data-switchboard-warning') {
                  const { code, message: text } = part.data as TurnWarningData;
                  return (
                    <p key={key} className="warning" role="note" data-code={code}>
                      ⚠ {text}
                    </p>
                  );
                }
                if (part.type === 'data-switchboard-error') {
                  const { code, message: text } = part.data as TurnErrorData;
                  return (
                    <p key={key} className="error turn-error" role="alert" data-code={code}>
                      {code}: {text}
                    </p>
                  );
                }
                return null;
              })}
              {message.role === 'assistant' && ended(message) && (
                <AnswerControls
                  messageId={message.id}
                  rating={ratingOf(message)}
                  onRate={(rating) => rate(message, rating)}
                  onRegenerate={
                    message === lastAssistant && status === 'ready' ? () => void regenerate() : undefined
                  }
                />
              )}
            </li>
          ),
        )}
      </ol>
      {/* useChat's latest error, unless the answer already shows it under its turn. */}
      {error && !(messages.at(-1) && failed(messages.at(-1)!)) && (
        <p id="error" className="error" role="alert">
          {error.message}
        </p>
      )}
      {problem && (
        <p id="problem" className="error" role="alert">
          {problem}
        </p>
      )}
      {(agent?.suggestions?.length ?? 0) > 0 && (
        <div id="suggestions" className="sb-suggestions">
          {agent?.suggestions?.map((text) => (
            <button
              key={text}
              type="button"
              className="suggestion"
              onClick={() => {
                followAgain();
                void sendMessage({ text });
              }}
            >
              {text}
            </button>
          ))}
        </div>
      )}
      <div id="pending-files" className="sb-pending-files">
        {files.map((file) => (
          <span key={fileIdOf(file)} className="file" data-file-id={fileIdOf(file)}>
            File: {file.filename}
          </span>
        ))}
      </div>
      <form id="composer" className="sb-composer" onSubmit={submit}>
        <label className="sb-attach">
          Attach
          <input type="file" id="file" className="sb-file" onChange={attach} />
        </label>
        <input
          id="message"
          className="sb-input"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Type a message"
          aria-label="Message"
        />
        <button id="send" className="sb-send primary" type="submit" disabled={busy}>
          Send
        </button>
        <button id="stop" className="sb-cancel" type="button" disabled={!busy} onClick={() => void stop()}>
          Stop
        </button>
      </form>
    </main>
  );
}
