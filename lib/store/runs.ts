import { GetItem, PutItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HostContext, StopReason, Usage } from '../contract/index.ts';
import { dueKeys, queryDue } from './due.ts';
import { keys } from './keys.ts';
import type { StoredAttachment } from './messages.ts';
import { retentionTtl } from './retention.ts';
import type { finish } from './run-machine.ts';
import { decodeJson, encodeJson, isConditionFailure } from './table.ts';
import type { RunStatus } from './types.ts';

/** Run fields stored as JSON text. */
export const RUN_JSON = ['usage', 'attachments', 'context', 'hostContext', 'resume'] as const;

/** A run: one turn of a session, from the message that started it to its outcome. */
export interface RunRecord {
  runId: string;
  sessionId: string;
  requestId: string;
  agentId: string;
  userMessageId: string;
  assistantMessageId: string;
  status: RunStatus;
  createdAt: string;
  startedAt?: string;
  endedAt?: string;
  stopReason?: StopReason;
  error?: { code: string; message: string };
  usage?: Usage;
  leaseOwner?: string;
  leaseExpiresAt?: number;
  /** Bucket keys of the screenshots the message carried: handed to look_at_screen, never stored with it. */
  screenshots?: string[];
  /** What the run does: a user message (`turn`), an answered request (`resolve`), a lapsed one withdrawn (`lapse`). */
  kind?: RunKind;
  /** The request a `resolve` or `lapse` run is about. */
  actionId?: string;
  /** The requests a new message superseded or withdrew, announced by its run. */
  withdrawn?: string[];
  /** Reference attachments that came with a continuation: they follow the tool result. */
  attachments?: StoredAttachment[];
  /** Sent with `steer: true`: offered to the running turn, else the next turn as usual. */
  steer?: boolean;
  /** The run that took it as steering. */
  steeredInto?: string;
  /** Who asked for the run, as the authoriser said (`resolveContext`): the agent's `input.context`. */
  context?: { user: { id: string } | null; data: Record<string, unknown> };
  /** How often the sweep queued it again; past a bound it is given up on. */
  requeues?: number;
  /** Set by a cancel (or a delete): the worker that holds the run stops it. */
  cancelRequested?: CancelReason;
  /** The run of the message (sent with `on_busy: "interrupt"`) that stopped this one. */
  interruptedBy?: string;
  /** The runs this message (sent with `on_busy: "interrupt"`) stopped, announced by its run. */
  interrupted?: string[];
  /** The host context a continuation carried: the one its `resolveAction` gets, right after the tool result. */
  hostContext?: HostContext;
  /** A regenerate or an edit: the run cuts the conversation back before it invokes the agent. */
  rewrite?: { mode: 'regenerate' | 'edit'; fromMessageId: string };
  /** `host_tools`: a silent host decision (and a receipt of one: bookkeeping, no agent). */
  outputMode?: 'host_tools';
  /** A `continue` run: the stopped run whose loop it carries on. */
  continues?: string;
  /**
   * What the agent's loop needs to carry on a turn it stopped at `max_turns` or `budget_reached`
   * (its result's `resume`), kept with the stopped run; in the bucket under `resumeKey` when larger
   * than an item should hold (a claim check, see blobs.ts `INLINE_LIMIT_BYTES`).
   */
  resume?: Record<string, unknown>;
  resumeKey?: string;
  /**
   * The span of the turn that stopped so, as a W3C `traceparent` (55 characters: ids and a flag),
   * kept with `resume` when the runtime traces: the `continue` run that carries it on follows it.
   * Null when the turn was not traced.
   */
  stoppedIn?: string | null;
  /**
   * The span this run follows from, as a W3C `traceparent`: the turn that asked the request a
   * `resolve` or `lapse` run answers (its `askedIn`), or the stopped turn a `continue` run carries on
   * (its `stoppedIn`). The run's turn span links it. Queued again by the sweep with the run.
   */
  follows?: string;
}

/** A queued run not claimed by then is queued again by the sweep (its job may have been lost). */
export const REQUEUE_AFTER_MS = 5 * 60_000;

/** Records a queued run; a second put of the same run (a retried request) changes nothing. */
export async function putRun(rt: Runtime, run: RunRecord): Promise<void> {
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...keys.run(run.sessionId, run.runId),
          type: 'run',
          ...encodeJson(run, RUN_JSON),
          ...dueIndex(rt, run, Date.parse(run.createdAt) + REQUEUE_AFTER_MS),
          ...retentionTtl(rt, 'sessions'),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** A queued run's keys in the sweep's due index: its hour's bucket, in the run's shard. */
export function dueIndex(rt: Runtime, run: Pick<RunRecord, 'sessionId' | 'runId'>, due: number) {
  return dueKeys(rt, 'run', run.runId, due, `${run.sessionId}#${run.runId}`);
}

/** Queued runs that nobody claimed in time, through the due index. */
export async function dueRuns(
  rt: Runtime,
  now: number,
  lookbackHours: number,
): Promise<{ sessionId: string; runId: string }[]> {
  const items = await queryDue(rt, 'run', { from: now - lookbackHours * 3_600_000, to: now }, now, [
    'sessionId',
    'runId',
  ]);
  return items.map((item) => ({ sessionId: String(item.sessionId), runId: String(item.runId) }));
}

/** The run, read consistently. */
export async function getRun(rt: Runtime, sessionId: string, runId: string): Promise<RunRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.run(sessionId, runId), ConsistentRead: true }),
  );
  return Item ? decodeJson<RunRecord>(Item, RUN_JSON) : undefined;
}

/** What a run does: a message, an answer, carrying on a stopped loop, a lapse, withdrawing open requests, deleting the session. */
export type RunKind = 'turn' | 'resolve' | 'continue' | 'lapse' | 'withdraw' | 'delete';

/** Why a run was asked to stop, as the seed names the reasons. */
export type CancelReason = 'user' | 'deleted' | 'shutdown' | 'lease_lost';

/** The outcome of a run, written once by the worker that holds its lease. */
export interface RunOutcome {
  status: (typeof finish.to)[number];
  stopReason: StopReason;
  error?: { code: string; message: string };
  usage?: Usage;
}

/** The user's runs that have not ended, oldest first: what a new message would wait behind. */
export function busyRuns(runs: RunRecord[]): RunRecord[] {
  return runs
    .filter(
      (r) =>
        (r.status === 'queued' || r.status === 'running') &&
        (r.kind === undefined || r.kind === 'turn' || r.kind === 'resolve' || r.kind === 'continue'),
    )
    .sort((a, b) => a.runId.localeCompare(b.runId));
}
