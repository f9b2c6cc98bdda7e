import { GetItem, PutItem, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { newId } from '../ids/index.ts';
import { currentTraceparent } from '../telemetry/index.ts';
import { announceExpiring, answer, decide, promote } from './action-machine.ts';
import { getBlob, INLINE_LIMIT_BYTES, isMissingObject, jsonBytes, putBlob } from './blobs.ts';
import { dueKeys, queryDue } from './due.ts';
import { keys, prefixes, ttlAt } from './keys.ts';
import {
  applyTransition,
  decodeJson,
  encodeJson,
  queryAll,
  transitionUpdate,
  type Written,
} from './table.ts';
import type { ActionStatus } from './types.ts';

const ACTION_JSON = ['action', 'resolution'] as const;

/** What the turn waits on: an approval, a question, a client tool or a host tool call. */
export interface ActionRecord {
  actionId: string;
  sessionId: string;
  /** The run that asked, and the assistant message that carries the request. */
  runId: string;
  messageId: string;
  kind: 'tool_approval' | 'user_question' | 'client_tool' | 'host_tool';
  /** The request as the agent made it. */
  action: Record<string, unknown>;
  status: ActionStatus;
  createdAt: string;
  expiresAt: number;
  resolution?: Record<string, unknown>;
  actor?: string;
  channel?: 'api' | 'timeout' | 'system';
  expired?: boolean;
  resolvedAt?: string;
  /** A newer request (a continuation, a new message) that decided it. */
  decidedBy?: string;
  /** Its place among the requests asked together, so they are listed in the order asked. */
  position?: number;
  /** When the sweep announced that it is about to lapse (`Pause Expiring`), once. */
  expiringAnnouncedAt?: string;
  /**
   * The span of the turn that asked, as a W3C `traceparent` (ids and a flag, nothing else): the run
   * that answers it links that span. None when tracing is off, and on requests stored before it was kept.
   */
  askedIn?: string;
}

/** What the item holds besides the record: where a request or an answer too large for it is kept. */
type StoredAction = ActionRecord & { actionBlobKey?: string; resolutionBlobKey?: string };

/**
 * Where a request's or an answer's JSON past {@link INLINE_LIMIT_BYTES} is kept (a claim check: an
 * item holds at most 400 KB, and an approval's arguments may be megabytes), deleted with the session:
 * `…/<actionId>.request.json`, and for each answer a key of its own (`…/<actionId>.answer_<ulid>.json`),
 * since two answers may race: the write decides which one the request records, and the other's
 * object, named by nothing, goes with the session.
 */
const actionBlobKey = (sessionId: string, actionId: string, name: string) =>
  `actions/${sessionId}/${actionId}.${name}.json`;

/**
 * A request as the item held it, with its request and its answer read back from the bucket when they
 * were moved there. One moved away by the bucket's retention (its session's messages expired first)
 * is shown as the item holds it.
 */
async function actionFrom(rt: Runtime, item: Record<string, unknown>): Promise<ActionRecord> {
  const {
    actionBlobKey: requestKey,
    resolutionBlobKey: answerKey,
    ...action
  } = decodeJson<StoredAction>(item, ACTION_JSON);
  const read = async <T>(key: string | undefined, kept: T): Promise<T> => {
    if (!key) return kept;
    try {
      return await getBlob<T>(rt, key);
    } catch (error) {
      if (isMissingObject(error)) return kept;
      throw error;
    }
  };
  const [request, resolution] = await Promise.all([
    read(requestKey, action.action),
    read(answerKey, action.resolution),
  ]);
  return { ...action, action: request, ...(resolution !== undefined && { resolution }) };
}

/** Decodes many items, each with {@link actionFrom}, oldest first. */
const actionsFrom = async (rt: Runtime, items: Record<string, unknown>[]) =>
  (await Promise.all(items.map((item) => actionFrom(rt, item)))).sort(byAsked);

/** The order requests were asked in: by time, then by place in their pause. How the reads list them. */
export const byAsked = (a: ActionRecord, b: ActionRecord) =>
  a.createdAt.localeCompare(b.createdAt) || (a.position ?? 0) - (b.position ?? 0);

/** How long a decided request is kept for 409 answers before DynamoDB's TTL removes it. */
const KEEP_DECIDED_MS = 7 * 24 * 3_600_000;

/** Stores the requests of a pause; a pending one is in the sweep's due index until it is decided. */
export async function putAction(rt: Runtime, asked: ActionRecord): Promise<void> {
  // A request is stored by the turn that asks it, in that turn's span.
  const askedIn = asked.askedIn ?? currentTraceparent();
  const action: ActionRecord = askedIn ? { ...asked, askedIn } : asked;
  let stored: StoredAction = action;
  if (jsonBytes(action.action) > INLINE_LIMIT_BYTES) {
    const key = actionBlobKey(action.sessionId, action.actionId, 'request');
    await putBlob(rt, key, action.action);
    // What the item keeps says what the request is; its arguments and the rest are in the bucket.
    const { id, type, toolName } = action.action as { id?: unknown; type?: unknown; toolName?: unknown };
    stored = { ...action, action: { id, type, toolName }, actionBlobKey: key };
  }
  const due =
    action.status === 'pending'
      ? dueKeys(rt, 'act', action.actionId, action.expiresAt, `${action.sessionId}#${action.actionId}`)
      : {};
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: {
        ...keys.action(action.sessionId, action.actionId),
        type: 'action',
        ...encodeJson(stored, ACTION_JSON),
        ...due,
        ttl: ttlAt(action.expiresAt + KEEP_DECIDED_MS),
      },
    }),
  );
  if (action.status === 'pending') rt.metrics.add('PendingActionsOpened', 1);
}

/** The request, read consistently. */
export async function getAction(
  rt: Runtime,
  sessionId: string,
  actionId: string,
): Promise<ActionRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetItem({ TableName: rt.table, Key: keys.action(sessionId, actionId), ConsistentRead: true }),
  );
  return Item ? actionFrom(rt, Item) : undefined;
}

/** Every request of a session, decided ones included, oldest first. */
export async function listActions(rt: Runtime, sessionId: string): Promise<ActionRecord[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :act)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':act': prefixes.action },
    ConsistentRead: true,
  });
  return actionsFrom(rt, items);
}

/** Whether a request is still open: pending, or a host call queued behind another. */
export const isOpen = (action: Pick<ActionRecord, 'status'>): boolean =>
  action.status === 'pending' || action.status === 'queued';

/** A session's requests that are still open (pending or queued), oldest first. */
export async function openActions(rt: Runtime, sessionId: string): Promise<ActionRecord[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :act)',
    FilterExpression: '#status IN (:pending, :queued)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':pk': keys.session(sessionId).pk,
      ':act': prefixes.action,
      ':pending': 'pending',
      ':queued': 'queued',
    },
    ConsistentRead: true,
  });
  return actionsFrom(rt, items);
}

/** How a decision is recorded. */
export interface Decision {
  status: Exclude<ActionStatus, 'pending' | 'queued'>;
  resolution?: Record<string, unknown>;
  actor: string;
  channel: NonNullable<ActionRecord['channel']>;
  expired?: boolean;
  decidedBy?: string;
}

/** A decision's outcome: decided by this call (a retry of it included), or refused. */
type Decided = { decided: true; action: ActionRecord } | { decided: false; action?: ActionRecord };

/** The request as a write left it or, refused, found it (none: there is no such request). */
const actionOf = (rt: Runtime, { item }: Written) => (item ? actionFrom(rt, item) : undefined);

/**
 * Decides an open request: one conditional write on its status being `from` (default `pending`)
 * and, for an answer (`mustBeLive`), on the request not having lapsed, so of two answers, or an
 * answer and the sweep, exactly one wins. Returns whether it was decided by this call (a retry of
 * it included), and the request as it is now: decided, or as the refused decision found it.
 */
export async function decideAction(
  rt: Runtime,
  sessionId: string,
  actionId: string,
  decision: Decision,
  options: { now: number; mustBeLive: boolean; from?: ActionStatus },
): Promise<Decided> {
  const from = options.from ?? 'pending';
  // An answer too large for the item (an approval's edited arguments, a tool's output) goes to the bucket first.
  let resolution = decision.resolution ? JSON.stringify(decision.resolution) : null;
  let resolutionBlobKey: string | null = null;
  if (resolution !== null && Buffer.byteLength(resolution) > INLINE_LIMIT_BYTES) {
    resolutionBlobKey = actionBlobKey(sessionId, actionId, newId('answer'));
    await putBlob(rt, resolutionBlobKey, decision.resolution);
    resolution = null;
  }
  const written = await applyTransition(
    rt,
    options.mustBeLive ? answer : decide,
    keys.action(sessionId, actionId),
    {
      resolution,
      resolutionBlobKey,
      actor: decision.actor,
      channel: decision.channel,
      expired: decision.expired ?? false,
      resolvedAt: new Date(options.now).toISOString(),
      decidedBy: decision.decidedBy ?? null,
      now: options.now,
    },
    { to: decision.status, from: [from] },
  );
  // A queued host call withdrawn before it was handed over was never counted as opened.
  if (written.applied && from === 'pending')
    rt.metrics.add(decision.expired ? 'PendingActionsExpired' : 'PendingActionsResolved', 1);
  // Applied, the write answered the decided request (ALL_NEW).
  return { decided: written.applied, action: await actionOf(rt, written) } as Decided;
}

/**
 * Hands over the next queued host call: queued → pending, with its own expiry. A call no longer
 * queued (withdrawn meanwhile) fails the write: DynamoDB's ConditionalCheckFailedException.
 */
export async function promoteAction(rt: Runtime, action: ActionRecord, expiresAt: number): Promise<void> {
  await rt.db.send(
    new UpdateItem({
      TableName: rt.table,
      ...transitionUpdate(promote, keys.action(action.sessionId, action.actionId), {
        expiresAt,
        ...dueKeys(rt, 'act', action.actionId, expiresAt, `${action.sessionId}#${action.actionId}`),
      }),
    }),
  );
  rt.metrics.add('PendingActionsOpened', 1);
}

/** Requests whose expiry passed before `now`, found through the due index, never a scan. */
export async function dueActions(
  rt: Runtime,
  now: number,
  lookbackHours: number,
): Promise<{ sessionId: string; actionId: string }[]> {
  const items = await queryDue(rt, 'act', { from: now - lookbackHours * 3_600_000, to: now }, now, [
    'sessionId',
    'actionId',
  ]);
  return items.map((item) => ({ sessionId: String(item.sessionId), actionId: String(item.actionId) }));
}

/**
 * Pending requests that lapse before `until`, found through the due index (the same one the lapses
 * are found by): the hourly buckets from `lookbackHours` ago to the hour of `until`.
 */
export async function actionsDueBy(
  rt: Runtime,
  now: number,
  until: number,
  lookbackHours: number,
): Promise<{ sessionId: string; actionId: string }[]> {
  const items = await queryDue(rt, 'act', { from: now - lookbackHours * 3_600_000, to: until }, until, [
    'sessionId',
    'actionId',
  ]);
  return items.map((item) => ({ sessionId: String(item.sessionId), actionId: String(item.actionId) }));
}

/**
 * Marks a pending request as announced to be lapsing: one conditional write, so that of two sweeps
 * exactly one announces it. Returns the record as it is now, or undefined when it was announced
 * already, or is no longer pending with this expiry (answered, or a host call handed over anew).
 */
export async function markExpiringAnnounced(
  rt: Runtime,
  action: Pick<ActionRecord, 'sessionId' | 'actionId' | 'expiresAt'>,
  now: number,
): Promise<ActionRecord | undefined> {
  const written = await applyTransition(
    rt,
    announceExpiring,
    keys.action(action.sessionId, action.actionId),
    {
      expiringAnnouncedAt: new Date(now).toISOString(),
      expiresAt: action.expiresAt,
    },
  );
  return written.applied ? actionOf(rt, written) : undefined;
}
