/**
 * The messages of the chat: a user message (its files, Edit), and an answer with its parts in the
 * order the log told them (text bubbles, tool calls by name, host actions, cards, files), its
 * errors, and Good/Bad/Regenerate once it has ended.
 */
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import type { ChatMessage, ChatPart, SwitchboardChat, ToolPart } from '../react/index.ts';
import { RequestCard, type RequestCardProps } from './cards.tsx';
import { json } from './format.ts';

/** What a team may put in place of the chat's own rendering: each returns undefined for the default. */
export interface ChatSlots {
  /** A card of the team's own for a request (an approval, a question, a client tool). */
  renderRequest?: (props: RequestCardProps) => ReactNode | undefined;
  /** A line of the team's own for a backend tool's call and result. */
  renderTool?: (part: ToolPart) => ReactNode | undefined;
}

/** What every message of one chat is drawn with. */
export interface MessageContext extends ChatSlots {
  chat: SwitchboardChat;
  clientTools: Readonly<Record<string, unknown>>;
}

export const submitted = (handler: () => void) => (event: FormEvent) => {
  event.preventDefault();
  handler();
};

/** A part that is not text: a backend tool's call and result (by the tool's name), a host action, a card, a file, a warning. */
function PartLine({ part, ui }: { part: Exclude<ChatPart, { type: 'text' }>; ui: MessageContext }) {
  switch (part.type) {
    case 'tool':
      return (
        ui.renderTool?.(part) ?? (
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
        )
      );
    case 'host_action':
      return (
        <div className="tool host" data-tool={part.name}>
          ⇢ {part.name}({json(part.args)}) on this page
        </div>
      );
    case 'request': {
      const props: RequestCardProps = {
        part,
        live: ui.chat.requests.find((request) => request.id === part.id),
        clientTools: ui.clientTools,
      };
      return ui.renderRequest?.(props) ?? <RequestCard {...props} />;
    }
    case 'file':
      return (
        <div className="file-chip" data-file-id={part.id}>
          📎 {part.name}
        </div>
      );
    case 'warning':
      return (
        <div className="warning" role="note" data-code={part.code}>
          ⚠ {part.message}
        </div>
      );
  }
}

/** An answer has ended when it is done and waits on nothing: no open card, no host action still running. */
export const ended = (message: ChatMessage) =>
  message.state === 'done' &&
  !message.parts.some(
    (part) =>
      (part.type === 'request' && part.state === 'open') ||
      (part.type === 'host_action' && part.state === 'pending'),
  );

/** The props of {@link AnswerControls}. */
export interface AnswerControlsProps {
  messageId: string;
  /** The rating given, pressed. */
  rating: 'up' | 'down' | null | undefined;
  /** Called with the rating pressed (the one given again withdraws it: `null`). */
  onRate: (rating: 'up' | 'down' | null) => void;
  /** Regenerate, under the newest answer only. */
  onRegenerate?: (() => void) | undefined;
}

/**
 * Good and Bad under an ended answer (pressed: the rating given; pressing it again withdraws it),
 * and Regenerate under the newest one. Both views of the demo use it.
 *
 * @example
 * ```tsx
 * <AnswerControls messageId={m.id} rating={m.rating} onRate={(r) => chat.rate(m.id, r)} />
 * ```
 */
export function AnswerControls({ messageId, rating, onRate, onRegenerate }: AnswerControlsProps) {
  return (
    <div className="controls answer" data-message-id={messageId}>
      {(['up', 'down'] as const).map((choice) => (
        <button
          key={choice}
          type="button"
          className="small"
          data-rating={choice}
          aria-label={choice === 'up' ? 'Good answer' : 'Bad answer'}
          aria-pressed={rating === choice}
          onClick={() => onRate(rating === choice ? null : choice)}
        >
          {choice === 'up' ? 'Good' : 'Bad'}
        </button>
      ))}
      {onRegenerate && (
        <button type="button" className="small regenerate" onClick={onRegenerate}>
          ↻ Regenerate
        </button>
      )}
    </div>
  );
}

/** A file a message was sent with, as the editor offers to keep it. */
export interface EditableFile {
  id: string;
  name: string;
}

/** The props of {@link MessageEditor}. */
export interface MessageEditorProps {
  /** The message's text, the field's first value. */
  text: string;
  /** The files it was sent with: each has a _Keep_ box, ticked. */
  files: readonly EditableFile[];
  /** Resend: the edited text and the ids of the files left ticked. */
  onResend: (text: string, keptFileIds: string[]) => void;
  /** Cancel, or Escape. */
  onCancel: () => void;
  className?: string;
  messageId?: string;
}

/**
 * A sent message opened for editing: its text in a field, a _Keep_ box per file, _Resend_ and
 * _Cancel_ (Escape cancels too). Both views of the demo use it.
 *
 * @example
 * ```tsx
 * <MessageEditor text={message.text} files={[]} onResend={(text) => chat.edit(message.id, text)} onCancel={close} />
 * ```
 */
export function MessageEditor({ text, files, onResend, onCancel, className, messageId }: MessageEditorProps) {
  const [value, setValue] = useState(text);
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());
  return (
    <form
      className={className}
      data-message-id={messageId}
      aria-label="Edit message"
      onKeyDown={(event) => event.key === 'Escape' && onCancel()}
      onSubmit={submitted(() => {
        const content = value.trim();
        if (content)
          onResend(
            content,
            files.filter((file) => !dropped.has(file.id)).map((file) => file.id),
          );
      })}
    >
      <input
        className="edit-field"
        aria-label="Edited message"
        value={value}
        // biome-ignore lint/a11y/noAutofocus: the field opens on the person's own click.
        autoFocus
        onChange={(event) => setValue(event.target.value)}
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
        <button type="button" className="small cancel-edit" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </form>
  );
}

/**
 * Whether a message is open for editing, and the Edit button's ref: back from the editor, the focus
 * returns to the button it came from.
 */
export function useEditing() {
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    if (!editing && refocus.current) {
      refocus.current = false;
      editButton.current?.focus();
    }
  }, [editing]);
  return {
    editing,
    editButton,
    open: () => setEditing(true),
    /** Closes the editor; `back` returns the focus to the Edit button (Cancel), not after a resend. */
    close: (back = true) => {
      refocus.current = back;
      setEditing(false);
    },
  };
}

/**
 * A user message: its text and the files sent with it. Edit opens it in a {@link MessageEditor}:
 * Resend sends it changed, with the files left ticked; Cancel (or Escape) leaves it as it was.
 */
export function UserMessage({ message, chat }: { message: ChatMessage; chat: SwitchboardChat }) {
  const { editing, editButton, open, close } = useEditing();
  const files = message.parts.filter((part) => part.type === 'file');
  if (editing)
    return (
      <MessageEditor
        className="msg user editing"
        messageId={message.id}
        text={message.text}
        files={files}
        onCancel={close}
        onResend={(content, kept) => {
          close(false);
          chat
            .edit(message.id, content, {
              files: files
                .filter((file) => kept.includes(file.id))
                .map((file) => ({ id: file.id, name: file.name, media_type: file.mediaType ?? '' })),
            })
            .catch(() => {});
        }}
      />
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
        <button
          type="button"
          className="small edit"
          ref={editButton}
          onClick={open}
          aria-label="Edit this message"
        >
          Edit
        </button>
      </div>
    </>
  );
}

/**
 * An answer, its parts in order: each run of text is a bubble, each other part a line or a card
 * between them; its controls once it has ended.
 */
export function AssistantMessage({
  message,
  newest,
  stopped,
  ui,
}: {
  message: ChatMessage;
  newest: boolean;
  stopped: boolean;
  ui: MessageContext;
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
  // Each text bubble is named after the part before it (by its id; a warning, which has none, by its place).
  let after = 'start';
  for (const [index, part] of message.parts.entries()) {
    if (part.type === 'text') text = (text ?? '') + part.text;
    else {
      flush(`text-${after}`);
      after = `${part.type}-${'id' in part ? part.id : index}`;
      pieces.push(<PartLine key={after} part={part} ui={ui} />);
    }
  }
  // An answer that has not said anything yet still shows that it is coming.
  if (text === undefined && message.state === 'streaming' && message.parts.length === 0) text = '';
  flush(`text-${after}`);
  // What went wrong in this turn, under it (a failed turn has no ratings: nothing was stored to rate).
  for (const [index, error] of message.errors.entries())
    pieces.push(
      <div key={`error-${index}`} className="error turn-error" role="alert" data-code={error.code}>
        {error.code}: {error.message}
      </div>,
    );
  if (ended(message) && message.errors.length === 0)
    pieces.push(
      <AnswerControls
        key="controls"
        messageId={message.id}
        rating={message.rating}
        onRate={(rating) => ui.chat.rate(message.id, rating).catch(() => {})}
        onRegenerate={newest ? () => ui.chat.regenerate(message.id).catch(() => {}) : undefined}
      />,
    );
  if (message.state === 'done' && (stopped || message.stopReason === 'cancelled'))
    pieces.push(
      <div key="stopped" className="note">
        Stopped.
      </div>,
    );
  return <>{pieces}</>;
}
