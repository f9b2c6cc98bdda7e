/**
 * `<ThreadList>`: the caller's own conversations, newest first (`GET /api/sessions`), each named by
 * the start of its first message, a page at a time.
 */
import { useCallback, useEffect, useState } from 'react';
import type { SessionSummary, SwitchboardClient } from '../client/index.ts';
import { describe } from './format.ts';

/** The props of {@link ThreadList}. */
export interface ThreadListProps {
  client: SwitchboardClient;
  /** The session shown now: marked `aria-current`. */
  selected?: string;
  /** Called with the session a person picks. */
  onSelect: (session: SessionSummary) => void;
  /** How many sessions a page reads (1–100; 20 by default). */
  pageSize?: number;
  /** Change it to read the list again (after a new conversation's first message, say). */
  refreshKey?: unknown;
  /** What a session without a title is called. */
  untitled?: string;
  className?: string;
}

const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The caller's sessions as a list of buttons; Show older reads the next page.
 *
 * @example
 * ```tsx
 * <ThreadList client={client} selected={sessionId} onSelect={(s) => open(s.id, s.agent_id)} />
 * ```
 */
export function ThreadList({
  client,
  selected,
  onSelect,
  pageSize = 20,
  refreshKey,
  untitled = 'Untitled conversation',
  className,
}: ThreadListProps) {
  const [sessions, setSessions] = useState<SessionSummary[]>();
  const [next, setNext] = useState<string | null>(null);
  const [problem, setProblem] = useState<string>();
  const read = useCallback(
    async (before: string | undefined) => {
      try {
        const page = await client.sessions({ limit: pageSize, ...(before && { before }) });
        setSessions((shown) => (before ? [...(shown ?? []), ...page.sessions] : page.sessions));
        setNext(page.next_before);
        setProblem(undefined);
      } catch (error) {
        setProblem(describe(error));
      }
    },
    [client, pageSize],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is there to read the list again.
  useEffect(() => {
    void read(undefined);
  }, [read, refreshKey]);
  return (
    <nav className={className ? `sb-threads ${className}` : 'sb-threads'} aria-label="Conversations">
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {sessions?.length === 0 && <p className="empty">No conversations yet.</p>}
      <ul>
        {sessions?.map((session) => (
          <li key={session.id}>
            <button
              type="button"
              className="thread"
              data-session-id={session.id}
              aria-current={session.id === selected ? 'true' : undefined}
              onClick={() => onSelect(session)}
            >
              <span className="thread-title">{session.title ?? untitled}</span>
              <span className="thread-meta">
                {session.agent_id} · <time dateTime={session.created_at}>{when(session.created_at)}</time>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {next && (
        <button type="button" className="small older" onClick={() => void read(next)}>
          Show older
        </button>
      )}
    </nav>
  );
}
