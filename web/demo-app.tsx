/**
 * The demo host, built from `switchboard/react-dom`: the agent picker and the conversations in a bar,
 * the chat (`<SwitchboardChat>`: streamed answers, tool calls by name, approvals, questions, client
 * tools, host actions, files, ratings, regenerate, edit, stop) and, with the demo agent, an issue
 * list that stands for the host's own app: its view, filter and actions go to the agent as
 * `host_context` with every message.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentList, HostContextInput, SessionSummary, SwitchboardClient } from '../client/index.ts';
import type { HostActionOption } from '../react/index.ts';
import { AgentPicker, SwitchboardChat, ThreadList } from '../react-dom/index.ts';
import { CLIENT_TOOLS } from './client-tools.ts';

/** The agent the issue list is made for (demo/demo-agent.ts): with another one, the page is the chat alone. */
export const DEMO_AGENT = 'demo';

/** An issue of the host's own app. */
export interface Issue {
  number: number;
  title: string;
  status: 'open' | 'closed';
  label: string;
}

const INITIAL_ISSUES: Issue[] = [
  { number: 1, title: 'Login times out on slow networks', status: 'open', label: 'bug' },
  { number: 2, title: 'Export answers as Markdown', status: 'open', label: 'feature' },
  { number: 3, title: 'Typo on the billing page', status: 'closed', label: 'docs' },
  { number: 4, title: 'Dark mode for the chat', status: 'open', label: 'feature' },
  { number: 5, title: 'Reconnect after laptop sleep', status: 'closed', label: 'bug' },
  { number: 6, title: 'Keyboard shortcut to send', status: 'open', label: 'feature' },
];
const STATUSES = ['all', 'open', 'closed'] as const;
type Filter = (typeof STATUSES)[number];
export interface AppState {
  issues: Issue[];
  filter: Filter;
}

const visibleIssues = ({ issues, filter }: AppState) =>
  issues.filter((issue) => filter === 'all' || issue.status === filter);

/** The issue list, kept in sessionStorage so that a reload keeps it. */
export function useIssues() {
  const [state, setState] = useState<AppState>(
    () =>
      JSON.parse(sessionStorage.getItem('switchboard-app') ?? 'null') ?? {
        issues: INITIAL_ISSUES,
        filter: 'all',
      },
  );
  // The handlers answer with the state they made, before React renders it.
  const current = useRef(state);
  const [flash, setFlash] = useState<number>();
  // What the agent last changed on this page, said where a phone shows it (the issue list may be folded away).
  const [change, setChange] = useState<string>();
  const update = useCallback((next: AppState) => {
    current.current = next;
    sessionStorage.setItem('switchboard-app', JSON.stringify(next));
    setState(next);
  }, []);
  useEffect(() => {
    if (flash === undefined) return;
    const timer = setTimeout(() => setFlash(undefined), 1200);
    return () => clearTimeout(timer);
  }, [flash]);
  const setFilter = useCallback(
    (filter: Filter) => {
      update({ ...current.current, filter });
      return visibleIssues(current.current).length;
    },
    [update],
  );
  const closeIssue = useCallback(
    (number: number) => {
      const { issues } = current.current;
      if (!issues.some((issue) => issue.number === number)) throw new Error(`there is no issue #${number}`);
      update({
        ...current.current,
        issues: issues.map((issue) => (issue.number === number ? { ...issue, status: 'closed' } : issue)),
      });
      setFlash(number);
    },
    [update],
  );
  return { state, flash, change, setChange, setFilter, closeIssue };
}

/** The host actions the agent may call on the issue list, declared in `host_context.actions`. */
export function issueActions({
  setFilter,
  closeIssue,
  setChange,
}: ReturnType<typeof useIssues>): Record<string, HostActionOption> {
  return {
    set_filter: {
      description: 'Show only the issues of one status.',
      parameters: {
        type: 'object',
        properties: { status: { type: 'string', enum: [...STATUSES] } },
        required: ['status'],
        additionalProperties: false,
      },
      handler: (args) => {
        const { status } = args as { status: Filter };
        if (!STATUSES.includes(status)) throw new Error(`unknown status "${status}"`);
        const shown = setFilter(status);
        setChange(`The agent set the filter to ${status}: ${shown} shown.`);
        return { status, shown };
      },
    },
    close_issue: {
      description: 'Close an issue, by its number.',
      parameters: {
        type: 'object',
        properties: { number: { type: 'integer' } },
        required: ['number'],
        additionalProperties: false,
      },
      handler: (args) => {
        const { number } = args as { number: number };
        closeIssue(number);
        setChange(`The agent closed issue #${number}.`);
        return { closed: number };
      },
    },
  };
}

/** Who the page is, for the agent: what it shows and can do, sent with every message. */
const HOST = { name: 'Switchboard demo page', kind: 'browser' } as const;

/**
 * The page's host context: the issue list's view and filter when it shows (the demo agent), else who
 * the page is. The actions a hook adds itself; `withActions` lists them too, for a transport.
 */
export function pageContext(
  state: AppState | undefined,
  withActions?: Record<string, HostActionOption>,
): HostContextInput {
  if (!state) return { host: HOST };
  return {
    host: HOST,
    view: {
      name: 'issues',
      description: 'An issue tracker: a list of issues with a status filter.',
      data: { issues: visibleIssues(state) },
      state: { filter: state.filter },
    },
    ...(withActions && {
      actions: Object.entries(withActions).flatMap(([name, action]) =>
        typeof action === 'function'
          ? []
          : [{ name, description: action.description, parameters: action.parameters }],
      ),
    }),
  };
}

export function Issues({ issues }: { issues: ReturnType<typeof useIssues> }) {
  const { state, flash, change, setFilter } = issues;
  const visible = visibleIssues(state);
  // On a phone the list folds away under its header, so that the chat keeps the screen.
  const [open, setOpen] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    // An issue the agent changed comes into view in the list (the list alone scrolls, never the page).
    if (flash === undefined) return;
    const item = list.current?.querySelector(`[data-number="${flash}"]`);
    item?.scrollIntoView({ block: 'nearest' });
  }, [flash]);
  return (
    <section className={open ? 'panel open' : 'panel'} id="app" aria-label="Issues">
      <header>
        <h2>Issues</h2>
        <span className="grow" />
        <span id="issue-count">{visible.length} shown</span>
        <button
          type="button"
          id="toggle-issues"
          className="small"
          aria-expanded={open}
          aria-controls="issues"
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide list' : 'Show list'}
        </button>
        <output id="issue-change" aria-live="polite">
          {change}
        </output>
      </header>
      <fieldset id="filters" aria-label="Filter">
        {STATUSES.map((status) => (
          <button
            key={status}
            type="button"
            data-filter={status}
            aria-pressed={state.filter === status}
            onClick={() => setFilter(status)}
          >
            {status[0]!.toUpperCase() + status.slice(1)}
          </button>
        ))}
      </fieldset>
      <ul id="issues" ref={list}>
        {visible.map((issue) => (
          <li
            key={issue.number}
            data-number={issue.number}
            data-status={issue.status}
            className={issue.number === flash ? 'flash' : undefined}
          >
            <span className="num">#{issue.number}</span>
            <span className="title">{issue.title}</span>
            <span className="meta">
              {issue.status} · {issue.label}
            </span>
          </li>
        ))}
      </ul>
      <p className="hint">
        This view, its filter and its actions (<code>set_filter</code>, <code>close_issue</code>) go to the
        agent as <code>host_context</code> with every message, so the agent can change this page.
      </p>
    </section>
  );
}

type Agent = AgentList['agents'][number];

/** The props of {@link DemoApp}: the page's client, and the agent `?agent=` asks for. */
export interface DemoAppProps {
  client: SwitchboardClient;
  requestedAgent: string | undefined;
}

const newSessionId = () => `web-${crypto.randomUUID()}`;

/** The session this tab shows, kept in sessionStorage so that a reload keeps it. */
function useSessionId() {
  const [sessionId, setSessionId] = useState(
    () => sessionStorage.getItem('switchboard-session') ?? newSessionId(),
  );
  useEffect(() => sessionStorage.setItem('switchboard-session', sessionId), [sessionId]);
  return [sessionId, setSessionId] as const;
}

/**
 * The conversations of this user, in a panel that opens under the page's bar (`<ThreadList>`):
 * picking one opens it (with its agent); Escape or picking closes the panel.
 */
function Threads({
  client,
  sessionId,
  onPick,
}: {
  client: SwitchboardClient;
  sessionId: string;
  onPick: (session: SessionSummary) => void;
}) {
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => {
    setOpen(false);
    toggle.current?.focus();
  }, []);
  useEffect(() => {
    // Escape closes the panel wherever the focus is (it stays on the button that opened it).
    if (!open) return;
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && close();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open, close]);
  return (
    <>
      <button
        type="button"
        id="toggle-threads"
        ref={toggle}
        aria-expanded={open}
        aria-controls="threads"
        onClick={() => setOpen(!open)}
      >
        Conversations
      </button>
      {open && (
        <dialog
          open
          id="threads"
          aria-label="Conversations"
          onKeyDown={(event) => event.key === 'Escape' && close()}
        >
          <ThreadList
            client={client}
            selected={sessionId}
            onSelect={(session) => {
              onPick(session);
              close();
            }}
          />
        </dialog>
      )}
    </>
  );
}

/**
 * The demo page: a bar with the agent picker (`<AgentPicker>`, `?agent=ID`, else the server's
 * default) and the conversations (`<ThreadList>`); the chat (`<SwitchboardChat>`); and, with the
 * demo agent, the issue list whose host actions it answers.
 */
export function DemoApp({ client, requestedAgent }: DemoAppProps) {
  const [agents, setAgents] = useState<AgentList>();
  const [agentId, setAgentId] = useState(requestedAgent);
  const [problem, setProblem] = useState<string>();
  const [sessionId, setSessionId] = useSessionId();
  const issues = useIssues();

  useEffect(() => {
    client.agents().then(setAgents, (error: Error) => setProblem(error.message));
  }, [client]);

  const chosen = agentId ?? agents?.default_agent_id ?? agents?.agents[0]?.id;
  const agent: Agent | undefined = agents?.agents.find((candidate) => candidate.id === chosen);
  const missing = agents && !agent;
  const name = agent ? (agent.name ?? agent.id) : 'Switchboard';
  useEffect(() => {
    document.title = `${name} · Switchboard`;
  }, [name]);

  const newConversation = () => setSessionId(newSessionId());
  const pickAgent = (picked: Agent) => {
    // The address names the agent, so that a reload keeps it; a session belongs to one agent.
    const params = new URLSearchParams(location.search);
    params.set('agent', picked.id);
    history.replaceState(null, '', `?${params}`);
    setAgentId(picked.id);
    newConversation();
  };
  const openSession = (session: SessionSummary) => {
    setAgentId(session.agent_id);
    setSessionId(session.id);
  };

  if (!agents && !problem) return null;
  const showsApp = agent?.id === DEMO_AGENT;
  const hostContext = pageContext(showsApp ? issues.state : undefined);
  return (
    <div className="page">
      <header className="topbar">
        <strong className="brand">Switchboard</strong>
        <AgentPicker client={client} value={chosen} onChange={pickAgent} />
        <span className="grow" />
        {/* The sandbox's own page: each turn's span tree, events and open requests. */}
        <a className="view-link" href="/sandbox/inspect">
          Inspector
        </a>
        <Threads client={client} sessionId={sessionId} onPick={openSession} />
      </header>
      <div className={showsApp ? 'layout' : 'layout chat-only'}>
        {showsApp && <Issues issues={issues} />}
        <SwitchboardChat
          key={sessionId}
          client={client}
          sessionId={sessionId}
          agentId={agent?.id ?? requestedAgent}
          title={name}
          description={agent?.description}
          suggestions={agent?.suggestions ?? []}
          hostContext={hostContext}
          actions={showsApp ? issueActions(issues) : undefined}
          clientTools={CLIENT_TOOLS}
          problem={
            problem ??
            (missing ? (agentId ? `There is no agent "${agentId}".` : 'The server has no agent.') : undefined)
          }
          headerActions={
            <>
              <a
                id="to-use-chat"
                className="view-link"
                href={`?view=use-chat&chat=${encodeURIComponent(sessionId)}`}
              >
                useChat view
              </a>
              <button type="button" id="new-conversation" onClick={newConversation}>
                New conversation
              </button>
            </>
          }
        />
      </div>
    </div>
  );
}
