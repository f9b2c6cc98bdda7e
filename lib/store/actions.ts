import { GetItem, PutItem, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { announceExpiring, answer, decide, promote } from './action-machine.ts';
import { dueBucket, INDEXES, keys, prefixes, ttlAt } from './keys.ts';
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
}

/** The order requests were asked in: by time, then by place in their pause. How the reads list them. */
export const byAsked = (a: ActionRecord, b: ActionRecord) =>
  a.createdAt.localeCompare(b.createdAt) || (a.position ?? 0) - (b.position ?? 0);

/** How long a decided request is kept for 409 answers before DynamoDB's TTL removes it. */
const KEEP_DECIDED_MS = 7 * 24 * 3_600_000;

/** Stores the requests of a pause; a pending one is in the sweep's due index until it is decided. */
export async function putAction(rt: Runtime, action: ActionRecord): Promise<void> {
  const due =
    action.status === 'pending'
      ? {
          gsi1pk: dueBucket('act', action.expiresAt),
          gsi1sk: `${action.expiresAt}#${action.sessionId}#${action.actionId}`,
        }
      : {};
  await rt.db.send(
    new PutItem({
      TableName: rt.table,
      Item: {
        ...keys.action(action.sessionId, action.actionId),
        type: 'action',
        ...encodeJson(action, ACTION_JSON),
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
  return Item ? decodeJson<ActionRecord>(Item, ACTION_JSON) : undefined;
}

/** Every request of a session, decided ones included, oldest first. */
export async function listActions(rt: Runtime, sessionId: string): Promise<ActionRecord[]> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :act)',
    ExpressionAttributeValues: { ':pk': keys.session(sessionId).pk, ':act': prefixes.action },
    ConsistentRead: true,
  });
  return items.map((item) => decodeJson<ActionRecord>(item, ACTION_JSON)).sort(byAsked);
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
  return items.map((item) => decodeJson<ActionRecord>(item, ACTION_JSON)).sort(byAsked);
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
const actionOf = ({ item }: Written) => (item ? decodeJson<ActionRecord>(item, ACTION_JSON) : undefined);

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
  const written = await applyTransition(
    rt,
    options.mustBeLive ? answer : decide,
    keys.action(sessionId, actionId),
    {
      resolution: decision.resolution ? JSON.stringify(decision.resolution) : null,
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
  return { decided: written.applied, action: actionOf(written) } as Decided;
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
        gsi1pk: dueBucket('act', expiresAt),
        gsi1sk: `${expiresAt}#${action.sessionId}#${action.actionId}`,
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
  const found: { sessionId: string; actionId: string }[] = [];
  for (let h = lookbackHours; h >= 0; h -= 1) {
    const items = await queryAll(rt, {
      IndexName: INDEXES.sweep,
      KeyConditionExpression: 'gsi1pk = :bucket AND gsi1sk < :now',
      ExpressionAttributeValues: { ':bucket': dueBucket('act', now - h * 3_600_000), ':now': `${now}` },
    });
    found.push(
      ...items.map((item) => ({ sessionId: String(item.sessionId), actionId: String(item.actionId) })),
    );
  }
  return found;
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
  const found: { sessionId: string; actionId: string }[] = [];
  const last = Math.floor(until / 3_600_000);
  for (let hour = Math.floor(now / 3_600_000) - lookbackHours; hour <= last; hour += 1) {
    const items = await queryAll(rt, {
      IndexName: INDEXES.sweep,
      KeyConditionExpression: 'gsi1pk = :bucket AND gsi1sk < :until',
      ExpressionAttributeValues: { ':bucket': dueBucket('act', hour * 3_600_000), ':until': `${until}` },
    });
    found.push(
      ...items.map((item) => ({ sessionId: String(item.sessionId), actionId: String(item.actionId) })),
    );
  }
  return found;
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
  return written.applied ? actionOf(written) : undefined;
}
