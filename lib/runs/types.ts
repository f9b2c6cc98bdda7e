import type { ResolvedHitl, Switchboard } from '../agents/index.ts';
import { hostSessionId, type requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostAgentRegistration, RewriteMode } from '../contract/index.ts';
import type { RunRecord, SessionRecord } from '../store/index.ts';
import type { TurnAccounting } from '../usage/index.ts';
import type { Stopping } from './call-agent.ts';
import type { EventStream } from './event-stream.ts';

/** What every kind of run works with. */
export interface RunScope {
  rt: Runtime;
  app: Switchboard;
  agent: HostAgentRegistration;
  hitl: ResolvedHitl;
  run: RunRecord;
  session: SessionRecord;
  stream: EventStream;
  context: ReturnType<typeof requestContextOf>;
  log: Runtime['logger'];
  stopping: Stopping;
  /** How the run is priced, the session's spend before it and its budget. */
  accounting: TurnAccounting;
}

/** The answer to an accepted message or continuation: where its turn will show up. */
export interface Accepted {
  request_id: string;
  session_id: string;
  run_id: string;
  message_id: string;
  assistant_message_id: string;
  status: 'queued';
  duplicate: boolean;
  /** The runs a message sent with `on_busy: "interrupt"` stopped (absent when it stopped none). */
  interrupted?: string[];
}

/** The answer to a request that queued a run: its ids, by the host's own session id. */
export function acceptedOf(queued: {
  requestId: string;
  sessionId: string;
  runId: string;
  messageId: string;
  assistantMessageId: string;
  duplicate: boolean;
}): Accepted {
  return {
    request_id: queued.requestId,
    session_id: hostSessionId(queued.sessionId),
    run_id: queued.runId,
    message_id: queued.messageId,
    assistant_message_id: queued.assistantMessageId,
    status: 'queued',
    duplicate: queued.duplicate,
  };
}

/**
 * Runs once the request is recorded and before its run is queued, so that whoever it lets follow
 * the session (a WebSocket sender joins here) misses none of the run's events.
 */
export type BeforeEnqueue = (sessionId: string) => Promise<void>;

/** A regenerate or an edit, checked: what its run replaces and which user message it runs. */
export interface Rewrite {
  mode: RewriteMode;
  fromMessageId: string;
  /** A regenerate runs the user message the answer answered; an edit stores a new one. */
  userMessageId?: string;
}
