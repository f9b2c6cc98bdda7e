/**
 * `<SwitchboardChat>`: a whole chat on `useSwitchboardChat` — the conversation with its parts in
 * order, the requests the turn waits on as cards, suggestions, attach, ratings, regenerate, edit,
 * cancel and the connection's state — styled by `switchboard/react-dom/styles.css` and themed with
 * its CSS custom properties.
 */
import { type ChangeEvent, type ReactNode, useCallback, useEffect, useId, useRef, useState } from 'react';
import type { FileRecord } from '../client/index.ts';
import { type UseSwitchboardChatOptions, useSwitchboardChat } from '../react/index.ts';
import { describe } from './format.ts';
import {
  AssistantMessage,
  type ChatSlots,
  type MessageContext,
  submitted,
  UserMessage,
} from './messages.tsx';

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

/** What {@link SwitchboardChat} shows beside the conversation, and its slots. */
export interface ChatViewProps extends ChatSlots {
  /** The chat's heading: the agent's name, say. */
  title?: ReactNode;
  /** What the agent does, shown as the heading's tooltip. */
  description?: string;
  /** Prompts offered as buttons above the composer (an agent's `suggestions`). */
  suggestions?: readonly string[];
  /** Controls of the host's own at the end of the header: a link, a New conversation button. */
  headerActions?: ReactNode;
  /** A problem of the host's own to show in the log (its agent could not be found, say). */
  problem?: string;
  /** What the composer's field says while empty. */
  placeholder?: string;
  /** What a message of files alone is sent as. */
  filesOnlyMessage?: string;
  /** A class of the host's own on the root, beside `sb-chat`. */
  className?: string;
}

/** The props of {@link SwitchboardChat}: the hook's options (a client, or a url and token), and what the chat shows. */
export type SwitchboardChatProps = UseSwitchboardChatOptions & ChatViewProps;

/** The log follows the conversation down while it is at its end: a person who scrolled up to read stays there. */
export function useFollow<T extends HTMLElement = HTMLDivElement>(changes: unknown[]) {
  const log = useRef<T>(null);
  const following = useRef(true);
  const followedTo = useRef(0);
  const follow = useCallback(() => {
    const el = log.current;
    if (!el || !following.current) return;
    el.scrollTop = el.scrollHeight;
    followedTo.current = el.scrollTop;
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: every change of the conversation scrolls it down.
  useEffect(follow, changes);
  useEffect(() => {
    // The log's own size changes too (a phone's keyboard, a panel opened above it): it stays at its end.
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
  return { log, onScroll, followAgain: () => (following.current = true) };
}

/**
 * A whole chat with one agent, in one session. Give it a key of the session's id, so that another
 * session starts from a fresh state.
 *
 * @example
 * ```tsx
 * import { SwitchboardChat } from 'switchboard/react-dom';
 * import 'switchboard/react-dom/styles.css';
 *
 * <SwitchboardChat key={sessionId} client={client} sessionId={sessionId} agentId="support" title="Support" />
 * ```
 */
export function SwitchboardChat(props: SwitchboardChatProps) {
  const { title, description, suggestions = [], headerActions, problem, className } = props;
  const clientTools = props.clientTools ?? {};
  const chat = useSwitchboardChat(props);
  const { messages, status, connection, error } = chat;
  const [input, setInput] = useState('');
  const [files, setFiles] = useState<FileRecord[]>([]);
  const [uploadError, setUploadError] = useState<string>();
  // The answer this chat stopped: a cancelled turn may end without a final answer to say so.
  const [stopped, setStopped] = useState<string>();
  const { log, onScroll, followAgain } = useFollow([messages, error, status, uploadError, problem]);
  const ids = useId();

  const send = (content: string) => {
    followAgain();
    const attached = files;
    setFiles([]);
    chat.send(content, { files: attached }).catch(() => {});
  };
  const attach = async (event: ChangeEvent<HTMLInputElement>) => {
    const field = event.currentTarget;
    const file = field.files?.[0];
    field.value = '';
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
  const problems = [problem, error && describe(error), uploadError].filter(Boolean);
  const ui: MessageContext = {
    chat,
    clientTools,
    ...(props.renderRequest && { renderRequest: props.renderRequest }),
    ...(props.renderTool && { renderTool: props.renderTool }),
  };

  return (
    <section
      className={className ? `sb-chat ${className}` : 'sb-chat'}
      aria-labelledby={`${ids}-title`}
      data-status={status}
      data-connection={connection}
    >
      <header className="sb-header">
        <h2 className="sb-title" id={`${ids}-title`} title={description}>
          {title ?? 'Chat'}
        </h2>
        <span className="sb-connection" data-status={connection} role="status">
          {CONNECTION_TEXT[connection] ?? connection}
        </span>
        <span className="sb-activity">{ACTIVITY[status] ?? ''}</span>
        {headerActions}
      </header>
      <div className="sb-log" role="log" aria-label="Conversation" ref={log} onScroll={onScroll}>
        {messages.map((message) =>
          message.role === 'user' ? (
            <UserMessage key={message.id} message={message} chat={chat} />
          ) : (
            <AssistantMessage
              key={message.id}
              message={message}
              newest={message.id === newestAnswer}
              stopped={message.id === stopped}
              ui={ui}
            />
          ),
        )}
        {problems.map((text) => (
          <div key={text} className="error" role="alert">
            {text}
          </div>
        ))}
      </div>
      {suggestions.length > 0 && (
        <fieldset className="sb-suggestions">
          <legend className="sb-hidden">Suggestions</legend>
          {suggestions.map((text) => (
            <button key={text} type="button" className="suggestion" onClick={() => send(text)}>
              {text}
            </button>
          ))}
        </fieldset>
      )}
      <div className="sb-pending-files" aria-live="polite">
        {files.map((file) => (
          <span key={file.id} className="file">
            File: {file.name}
          </span>
        ))}
      </div>
      <form
        className="sb-composer"
        aria-label="Message composer"
        onSubmit={submitted(() => {
          const content = input.trim();
          if (!content && files.length === 0) return;
          setInput('');
          send(content || (props.filesOnlyMessage ?? 'What is in the file I attached?'));
        })}
      >
        <label className="sb-attach">
          Attach
          <input type="file" className="sb-file" onChange={attach} />
        </label>
        <input
          className="sb-input"
          autoComplete="off"
          placeholder={props.placeholder ?? 'Type a message'}
          aria-label="Message"
          value={input}
          onChange={(event) => setInput(event.target.value)}
        />
        <button className="sb-send primary" type="submit">
          Send
        </button>
        <button
          className="sb-cancel"
          type="button"
          disabled={status !== 'streaming'}
          onClick={() => {
            setStopped(newestAnswer);
            chat.stop().catch(() => {});
          }}
        >
          Cancel
        </button>
      </form>
    </section>
  );
}
