/**
 * The chat of the demo page, on `useSwitchboardChat`: every message with its parts in the order the
 * log told them, the requests the turn waits on as cards, and the composer.
 */
import {
  type ChangeEvent,
  type FormEvent,
  type ReactNode,
  useCallback,
  useEffect,
  useRef,
  useState,
} from 'react';
import type { FileRecord, HostContextInput, SwitchboardClient } from '../client/index.ts';
import {
  type ChatMessage,
  type ChatPart,
  type HostActionOption,
  type PendingRequest,
  type RequestPart,
  type SwitchboardChat,
  useSwitchboardChat,
} from '../react/index.ts';
import { CLIENT_TOOLS } from './client-tools.ts';

const CONNECTION_TEXT: Record<string, string> = {
  idle: 'not connected',
  connecting: 'connecting…',
  open: 'connected',
  reconnecting: 'reconnecting…',
  closed: 'offline',
};

const ACTIVITY: Record<string, string> = {
  streaming: 'agent is answering…',
  requires_action: 'waiting for you',
};

const json = (value: unknown) => JSON.stringify(value ?? {});

/** What a refused request says: the fields an `ArgsValidationError` names, else its message. */
function describe(error: unknown): string {
  const issues = (error as { issues?: { path: (string | number)[]; message: string }[] }).issues;
  if (issues?.length) return issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const { code, message } = error as { code?: string; message?: string };
  return code ? `${code}: ${message}` : String(message ?? error);
}

const submitted = (handler: () => void) => (event: FormEvent) => {
  event.preventDefault();
  handler();
};

/** How a settled request ended. */
function outcomeOf(part: RequestPart): string {
  if (part.state === 'expired') return 'Expired';
  if (part.state !== 'resolved') return 'Withdrawn';
  const resolution = (part.resolution ?? {}) as { decision?: string; answers?: unknown };
  if (resolution.decision === 'approve')
    return part.resolution?.approved_args
      ? `Approved with ${json(part.resolution.approved_args)}`
      : 'Approved';
  if (resolution.decision === 'deny') return 'Denied';
  if (resolution.answers !== undefined) {
    const answers = Array.isArray(resolution.answers)
      ? resolution.answers
      : Object.values(resolution.answers as object);
    return `Answered: ${answers.join(', ')}`;
  }
  return 'Answered';
}

/** A card for a request the turn waits on: an approval, a question, or a client tool. */
function RequestCard({ part, live }: { part: RequestPart; live: PendingRequest | undefined }) {
  const { request } = part;
  const [args, setArgs] = useState(() => JSON.stringify(request.args ?? {}, null, 2));
  const [other, setOther] = useState('');
  const [problem, setProblem] = useState('');
  const settled = part.state !== 'open';
  // What was approved, when it was approved with changed arguments: the card shows those.
  const approvedArgs = settled ? part.resolution?.approved_args : undefined;
  const settle = (promise: Promise<unknown> | undefined) => {
    setProblem('');
    promise?.catch((error) => setProblem(describe(error)));
  };
  let body: ReactNode;
  if (request.type === 'tool_approval') {
    const approve = () => {
      let edited: unknown;
      try {
        edited = JSON.parse(args);
      } catch {
        setProblem('The arguments are not valid JSON.');
        return;
      }
      const changed = JSON.stringify(edited) !== JSON.stringify(request.args ?? {});
      if (live?.type === 'tool_approval')
        settle(live.approve(changed ? (edited as Record<string, unknown>) : undefined));
    };
    body = (
      <>
        <span className="kind">Approval · {request.toolName ?? 'tool'}</span>
        <strong>{request.title ?? `Run ${request.toolName}?`}</strong>
        <textarea
          className="args"
          aria-label="Arguments"
          spellCheck={false}
          value={approvedArgs ? JSON.stringify(approvedArgs, null, 2) : args}
          disabled={settled}
          onChange={(event) => setArgs(event.target.value)}
        />
        <div className="problem">{problem}</div>
        <div className="buttons">
          <button type="button" className="primary approve" disabled={settled} onClick={approve}>
            Approve
          </button>
          <button
            type="button"
            className="deny"
            disabled={settled}
            onClick={() => live?.type === 'tool_approval' && settle(live.deny())}
          >
            Deny
          </button>
        </div>
      </>
    );
  } else if (request.type === 'user_question') {
    const answer = (value: string) => live?.type === 'user_question' && settle(live.answer([value]));
    body = (
      <>
        <span className="kind">Question</span>
        {(request.questions ?? []).map((question) => (
          <div key={question.question} className="question">
            <strong>{question.question}</strong>
            <div className="buttons">
              {(question.options ?? []).map((option) => (
                <button
                  key={option.label}
                  type="button"
                  className="option"
                  disabled={settled}
                  onClick={() => answer(option.label)}
                >
                  {option.label}
                </button>
              ))}
              <input
                placeholder="Or type an answer"
                aria-label="Answer"
                value={other}
                disabled={settled}
                onChange={(event) => setOther(event.target.value)}
              />
              <button type="button" disabled={settled} onClick={() => other.trim() && answer(other.trim())}>
                Answer
              </button>
            </div>
          </div>
        ))}
        <div className="problem">{problem}</div>
      </>
    );
  } else {
    // A client tool: the hook answers it with its handler, when this page has one.
    const handled = (request.toolName ?? '') in CLIENT_TOOLS;
    body = (
      <>
        <span className="kind">Client tool</span>
        <strong>{request.title ?? request.toolName}</strong>
        <span className="handled">
          {handled ? `Answered by this page (${request.toolName}).` : `This page has no ${request.toolName}.`}
        </span>
      </>
    );
  }
  return (
    <div className={`card ${request.type}${settled ? ' settled' : ''}`} data-action-id={part.id}>
      {body}
      {settled && <span className="outcome">{outcomeOf(part)}</span>}
    </div>
  );
}

/** A part that is not text: a backend tool's call and result (by the tool's name), a host action, a card. */
function PartLine({ part, chat }: { part: Exclude<ChatPart, { type: 'text' }>; chat: SwitchboardChat }) {
  switch (part.type) {
    case 'tool':
      return (
        <>
          <div className="tool" data-tool={part.name}>
            → {part.name}({json(part.args)})
          </div>
          {part.state !== 'running' && (
            <div className={`tool result ${part.state}`} data-tool={part.name}>
              ← {part.name}: {json(part.state === 'succeeded' ? part.result : part.error)}
            </div>
          )}
        </>
      );
    case 'host_action':
      return (
        <div className="tool host" data-tool={part.name}>
          ⇢ {part.name}({json(part.args)}) on this page
        </div>
      );
    case 'request':
      return <RequestCard part={part} live={chat.requests.find((request) => request.id === part.id)} />;
    case 'file':
      return (
        <div className="file-chip" data-file-id={part.id}>
          📎 {part.name}
        </div>
      );
  }
}

/** An answer has ended when it is done and waits on nothing: no open card, no host action still running. */
const ended = (message: ChatMessage) =>
  message.state === 'done' &&
  !message.parts.some(
    (part) =>
      (part.type === 'request' && part.state === 'open') ||
      (part.type === 'host_action' && part.state === 'pending'),
  );

/** Ratings under an answer, and Regenerate under the newest one. */
function AnswerControls({
  message,
  newest,
  chat,
}: {
  message: ChatMessage;
  newest: boolean;
  chat: SwitchboardChat;
}) {
  const rate = (rating: 'up' | 'down') => () =>
    chat.rate(message.id, message.rating === rating ? null : rating).catch(() => {});
  return (
    <div className="controls answer" data-message-id={message.id}>
      {(['up', 'down'] as const).map((rating) => (
        <button
          key={rating}
          type="button"
          className="small"
          data-rating={rating}
          title={`Rate this answer ${rating}`}
          aria-pressed={message.rating === rating}
          onClick={rate(rating)}
        >
          {rating === 'up' ? 'Good' : 'Bad'}
        </button>
      ))}
      {newest && (
        <button
          type="button"
          className="small regenerate"
          onClick={() => chat.regenerate(message.id).catch(() => {})}
        >
          ↻ Regenerate
        </button>
      )}
    </div>
  );
}

/**
 * A user message: its text and the files sent with it. Edit opens it in a field: Resend sends it
 * changed, with the files left ticked; Cancel (or Escape) leaves it as it was.
 */
function UserMessage({ message, chat }: { message: ChatMessage; chat: SwitchboardChat }) {
  const [editing, setEditing] = useState<string>();
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
  const editButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  const files = message.parts.filter((part) => part.type === 'file');
  useEffect(() => {
    // Back from the field, the focus goes back to the Edit button it came from.
    if (editing === undefined && refocus.current) {
      refocus.current = false;
      editButton.current?.focus();
    }
  }, [editing]);
  const open = () => {
    setDropped(new Set());
    setEditing(message.text);
  };
  const close = () => {
    refocus.current = true;
    setEditing(undefined);
  };
  if (editing !== undefined)
    return (
      <form
        className="msg user editing"
        data-message-id={message.id}
        aria-label="Edit message"
        onKeyDown={(event) => event.key === 'Escape' && close()}
        onSubmit={submitted(() => {
          const content = editing.trim();
          if (!content) return;
          setEditing(undefined);
          const kept = files.filter((file) => !dropped.has(file.id));
          chat
            .edit(message.id, content, {
              files: kept.map((file) => ({ id: file.id, name: file.name, media_type: file.mediaType ?? '' })),
            })
            .catch(() => {});
        })}
      >
        <input
          className="edit-field"
          aria-label="Edited message"
          value={editing}
          // biome-ignore lint/a11y/noAutofocus: the field opens on the person's own click.
          autoFocus
          onChange={(event) => setEditing(event.target.value)}
        />
        {files.map((file) => (
          <label key={file.id} className="keep-file" data-file-id={file.id}>
            <input
              type="checkbox"
              checked={!dropped.has(file.id)}
              onChange={(event) => {
                const next = new Set(dropped);
                if (event.target.checked) next.delete(file.id);
                else next.add(file.id);
                setDropped(next);
              }}
            />{' '}
            Keep 📎 {file.name}
          </label>
        ))}
        <span className="buttons">
          <button type="submit" className="small resend">
            Resend
          </button>
          <button type="button" className="small cancel-edit" onClick={close}>
            Cancel
          </button>
        </span>
      </form>
    );
  return (
    <>
      <div className="msg user" data-message-id={message.id}>
        {message.text}
        {files.map((file) => (
          <span key={file.id} className="file" data-file-id={file.id}>
            📎 {file.name}
          </span>
        ))}
      </div>
      <div className="controls user-controls" data-message-id={message.id}>
        <button type="button" className="small edit" ref={editButton} onClick={open}>
          Edit
        </button>
      </div>
    </>
  );
}

/**
 * An answer, its parts in order: each run of text is a bubble, each other part a line or a card
 * between them; its controls once it is final.
 */
function AssistantMessage({
  message,
  newest,
  stopped,
  chat,
}: {
  message: ChatMessage;
  newest: boolean;
  stopped: boolean;
  chat: SwitchboardChat;
}) {
  const pieces: ReactNode[] = [];
  let text: string | undefined;
  const flush = (key: string) => {
    if (text === undefined) return;
    pieces.push(
      <div key={key} className="msg assistant" data-message-id={message.id}>
        <span className="text">{text}</span>
      </div>,
    );
    text = undefined;
  };
  // Each text bubble is named after the part before it (parts other than text have ids).
  let after = 'start';
  for (const part of message.parts) {
    if (part.type === 'text') text = (text ?? '') + part.text;
    else {
      flush(`text-${after}`);
      after = `${part.type}-${part.id}`;
      pieces.push(<PartLine key={after} part={part} chat={chat} />);
    }
  }
  // An answer that has not said anything yet still shows that it is coming.
  if (text === undefined && message.state === 'streaming' && message.parts.length === 0) text = '';
  flush(`text-${after}`);
  if (ended(message))
    pieces.push(<AnswerControls key="controls" message={message} newest={newest} chat={chat} />);
  if (message.state === 'done' && (stopped || message.stopReason === 'cancelled'))
    pieces.push(
      <div key="stopped" className="note">
        Stopped.
      </div>,
    );
  return <>{pieces}</>;
}

/** The props of {@link Chat}. */
export interface ChatProps {
  client: SwitchboardClient;
  sessionId: string;
  agentId: string | undefined;
  title: string;
  description: string | undefined;
  suggestions: string[];
  hostContext: HostContextInput;
  actions: Record<string, HostActionOption> | undefined;
  /** Why the page could not find its agent. */
  problem: string | undefined;
  onNewConversation: () => void;
}

/** The chat panel: header, conversation, suggestions, composer. */
export function Chat(props: ChatProps) {
  const chat = useSwitchboardChat({
    client: props.client,
    sessionId: props.sessionId,
    agentId: props.agentId,
    hostContext: props.hostContext,
    actions: props.actions,
    clientTools: CLIENT_TOOLS,
  });
  const { messages, status, connection, error } = chat;
  const [input, setInput] = useState('');
  const [files, setFiles] = useState<FileRecord[]>([]);
  const [uploadError, setUploadError] = useState<string>();
  // The answer this page stopped: a cancelled turn may end without a final answer to say so.
  const [stopped, setStopped] = useState<string>();
  const log = useRef<HTMLElement>(null);

  // The log follows the conversation down while it is at its end (or after this page sends): a person
  // who scrolled up to read stays where they are.
  const following = useRef(true);
  const followedTo = useRef(0);
  const follow = useCallback(() => {
    const el = log.current;
    if (!el || !following.current) return;
    el.scrollTop = el.scrollHeight;
    followedTo.current = el.scrollTop;
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: every change of the conversation scrolls it down.
  useEffect(follow, [messages, error, status, uploadError, props.problem]);
  useEffect(() => {
    // The log's own size changes too (a phone's keyboard, the issue list opened): it stays at its end.
    const el = log.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(follow);
    observer.observe(el);
    return () => observer.disconnect();
  }, [follow]);
  const onScroll = () => {
    const el = log.current;
    if (!el) return;
    // Back at the end, it follows again; scrolled up from where it was taken, it stops following.
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 24) following.current = true;
    else if (el.scrollTop < followedTo.current - 4) following.current = false;
    followedTo.current = Math.min(followedTo.current, el.scrollTop);
  };

  const send = (content: string) => {
    following.current = true;
    const attached = files;
    setFiles([]);
    chat.send(content, { files: attached }).catch(() => {});
  };
  const attach = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    try {
      const record = await chat.upload(file);
      setFiles((before) => [...before, record]);
      setUploadError(undefined);
    } catch (failure) {
      setUploadError(describe(failure));
    }
  };
  const newestAnswer = messages.findLast((message) => message.role === 'assistant')?.id;
  const problems = [props.problem, error && describe(error), uploadError].filter(Boolean);

  return (
    <main className="panel" aria-label="Chat">
      <header>
        <h1 id="agent-name" title={props.description}>
          {props.title}
        </h1>
        <span id="connection" data-status={connection}>
          {CONNECTION_TEXT[connection] ?? connection}
        </span>
        <span id="activity" className="grow">
          {ACTIVITY[status] ?? ''}
        </span>
        <nav className="views">
          <a id="to-use-chat" href={`?view=use-chat&chat=${encodeURIComponent(props.sessionId)}`}>
            useChat view
          </a>
        </nav>
        <button type="button" id="new-conversation" onClick={props.onNewConversation}>
          New conversation
        </button>
      </header>
      <section id="log" aria-live="polite" ref={log} onScroll={onScroll}>
        {messages.map((message) =>
          message.role === 'user' ? (
            <UserMessage key={message.id} message={message} chat={chat} />
          ) : (
            <AssistantMessage
              key={message.id}
              message={message}
              newest={message.id === newestAnswer}
              stopped={message.id === stopped}
              chat={chat}
            />
          ),
        )}
        {problems.map((problem) => (
          <div key={problem} className="error">
            {problem}
          </div>
        ))}
      </section>
      <div id="suggestions">
        {props.suggestions.map((text) => (
          <button key={text} type="button" className="suggestion" onClick={() => send(text)}>
            {text}
          </button>
        ))}
      </div>
      <div id="pending-files">
        {files.map((file) => (
          <span key={file.id} className="file">
            File: {file.name}
          </span>
        ))}
      </div>
      <form
        id="composer"
        onSubmit={submitted(() => {
          const content = input.trim();
          if (!content && files.length === 0) return;
          setInput('');
          send(content || 'What is in the file I attached?');
        })}
      >
        <label className="attach" title="Attach a file">
          Attach
          <input type="file" id="file" aria-label="Attach a file" onChange={attach} />
        </label>
        <input
          id="message"
          autoComplete="off"
          placeholder="Type a message"
          aria-label="Message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        <button id="send" className="primary" type="submit">
          Send
        </button>
        <button
          id="cancel"
          type="button"
          disabled={status !== 'streaming'}
          onClick={() => {
            setStopped(newestAnswer);
            void chat.stop();
          }}
        >
          Cancel
        </button>
      </form>
    </main>
  );
}
