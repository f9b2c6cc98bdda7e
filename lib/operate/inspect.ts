import { hostSessionId } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SessionNotFoundError } from '../errors/index.ts';
import {
  type ActionRecord,
  getSession,
  lastSeq,
  listActions,
  listEvents,
  listRuns,
  type RunRecord,
  type SessionEvent,
} from '../store/index.ts';

/** A session as an operator sees it: its record, every run, every request it asked, and its log's end. */
export interface SessionReport {
  ref: string;
  hostId: string;
  owner: string;
  tenant?: string;
  agentId: string;
  createdAt: string;
  deletedAt?: string;
  spentUsd?: number;
  /** The highest seq of its event log (0: empty). */
  lastSeq: number;
  /** The end of its event log: its last events, oldest first. */
  events: SessionEvent[];
  runs: Pick<
    RunRecord,
    | 'runId'
    | 'kind'
    | 'status'
    | 'createdAt'
    | 'startedAt'
    | 'endedAt'
    | 'stopReason'
    | 'error'
    | 'leaseOwner'
    | 'leaseExpiresAt'
    | 'cancelRequested'
  >[];
  actions: Pick<
    ActionRecord,
    'actionId' | 'kind' | 'status' | 'runId' | 'createdAt' | 'expiresAt' | 'actor'
  >[];
}

/** How many of a session's last events {@link inspectSession} shows by default. */
export const INSPECT_EVENTS = 10;

/**
 * Reads a session by its ref (deleted ones too, while their items are being removed), with the
 * last `events` events of its log (default {@link INSPECT_EVENTS}; 0 for none).
 */
export async function inspectSession(
  rt: Runtime,
  ref: string,
  options: { events?: number } = {},
): Promise<SessionReport> {
  const session = await getSession(rt, ref, { includeDeleted: true });
  if (!session) throw new SessionNotFoundError(ref);
  const [runs, actions, seq] = await Promise.all([listRuns(rt, ref), listActions(rt, ref), lastSeq(rt, ref)]);
  const count = options.events ?? INSPECT_EVENTS;
  const events = count > 0 ? await listEvents(rt, ref, Math.max(0, seq - count), count) : [];
  return {
    ref,
    hostId: hostSessionId(ref),
    owner: session.owner,
    ...(session.tenant !== undefined && { tenant: session.tenant }),
    agentId: session.agentId,
    createdAt: session.createdAt,
    ...(session.deletedAt && { deletedAt: session.deletedAt }),
    ...(session.spentUsd !== undefined && { spentUsd: session.spentUsd }),
    lastSeq: seq,
    events,
    runs: runs.map((r) => ({
      runId: r.runId,
      kind: r.kind ?? 'turn',
      status: r.status,
      createdAt: r.createdAt,
      ...(r.startedAt && { startedAt: r.startedAt }),
      ...(r.endedAt && { endedAt: r.endedAt }),
      ...(r.stopReason && { stopReason: r.stopReason }),
      ...(r.error && { error: r.error }),
      ...(r.leaseOwner && { leaseOwner: r.leaseOwner }),
      ...(r.leaseExpiresAt !== undefined && { leaseExpiresAt: r.leaseExpiresAt }),
      ...(r.cancelRequested && { cancelRequested: r.cancelRequested }),
    })),
    actions: actions.map((a) => ({
      actionId: a.actionId,
      kind: a.kind,
      status: a.status,
      runId: a.runId,
      createdAt: a.createdAt,
      expiresAt: a.expiresAt,
      ...(a.actor && { actor: a.actor }),
    })),
  };
}
