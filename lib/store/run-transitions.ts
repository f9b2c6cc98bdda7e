import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Runtime } from '../config/index.ts';
import { keys } from './keys.ts';
import { type CancelReason, dueIndex, RUN_JSON, type RunRecord } from './runs.ts';
import { batchGet, decodeJson, isConditionFailure, updateIf } from './table.ts';

/*
 * The transitions of a run after it was queued, each one conditional write on the run item:
 * stopping it, its lease, a takeover, steering, and the sweep's bookkeeping.
 */

/** Asks the worker of a queued or running run to stop it. Returns the run, or undefined when it already ended. */
export async function requestCancel(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  reason: CancelReason,
): Promise<RunRecord | undefined> {
  try {
    const { Attributes } = await rt.db.send(
      new UpdateCommand({
        TableName: rt.table,
        Key: keys.run(run.sessionId, run.runId),
        UpdateExpression: 'SET cancelRequested = :reason',
        ConditionExpression: '#status IN (:queued, :running)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':reason': reason, ':queued': 'queued', ':running': 'running' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? decodeJson<RunRecord>(Attributes, RUN_JSON) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Stops a queued or running run for a message sent with `on_busy: "interrupt"` (run `by`): like a
 * cancel (reason `user`), and marked with who interrupted it. One conditional write; a run someone
 * else already stopped is left as it is, and a retry of the same interrupt finds its own mark.
 * Returns whether the run is now marked as interrupted by `by`.
 */
export async function requestInterrupt(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  by: string,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.run(run.sessionId, run.runId),
    UpdateExpression: 'SET cancelRequested = :reason, interruptedBy = :by',
    ConditionExpression:
      '#status IN (:queued, :running) AND (attribute_not_exists(cancelRequested) OR interruptedBy = :by)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':reason': 'user', ':by': by, ':queued': 'queued', ':running': 'running' },
  });
}

/**
 * Renews the lease of a running run this worker owns, and reads in the same write whether a stop
 * was asked for: the run's `cancelRequested` (none: `{}`), or undefined when the lease is not this
 * worker's any more.
 */
export async function renewLease(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  owner: string,
  now: number,
): Promise<{ cancelRequested?: CancelReason } | undefined> {
  try {
    const { Attributes } = await rt.db.send(
      new UpdateCommand({
        TableName: rt.table,
        Key: keys.run(run.sessionId, run.runId),
        UpdateExpression: 'SET leaseExpiresAt = :exp',
        ConditionExpression: 'leaseOwner = :owner AND #status = :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':exp': now + rt.settings.runs.leaseMs,
          ':owner': owner,
          ':running': 'running',
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const cancelRequested = Attributes?.cancelRequested as CancelReason | undefined;
    return cancelRequested ? { cancelRequested } : {};
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Which of some runs were asked to stop, and why: eventually consistent reads of one attribute
 * (half a read unit each), up to 100 runs in one BatchGetItem, which is what a worker polls while
 * its agents work. A stop written a moment ago may be seen one poll later; the lease renewal reads
 * it strongly. A run whose read DynamoDB left unprocessed is read at the next poll.
 */
export async function cancelRequestsOf(
  rt: Runtime,
  runs: readonly Pick<RunRecord, 'sessionId' | 'runId'>[],
): Promise<Map<string, CancelReason>> {
  const found = new Map<string, CancelReason>();
  const { items } = await batchGet(
    rt,
    runs.map((run) => keys.run(run.sessionId, run.runId)),
    'runId, cancelRequested',
  );
  for (const item of items) {
    if (item.cancelRequested) found.set(String(item.runId), item.cancelRequested as CancelReason);
  }
  return found;
}

/**
 * Takes over a run whose worker stopped renewing its lease (it crashed or stalled): one
 * conditional write, so of two deliveries only one takes it. The new owner closes it; it never
 * runs the agent again.
 */
export async function takeOverRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  owner: string,
  now: number,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.run(run.sessionId, run.runId),
    UpdateExpression: 'SET leaseOwner = :owner, leaseExpiresAt = :exp',
    // Or this very take-over, applied already: the SDK retries a call whose answer was lost.
    ConditionExpression:
      '#status = :running AND (leaseExpiresAt < :now OR (leaseOwner = :owner AND leaseExpiresAt = :exp))',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':owner': owner,
      ':exp': now + rt.settings.runs.leaseMs,
      ':running': 'running',
      ':now': now,
    },
  });
}

/**
 * Moves a still-queued run's next check later (after the sweep queued it again), and with
 * `requeues` records how often it was queued again. A count is set, not added, so that a call the
 * SDK sends twice (its first answer lost) counts once.
 */
export async function postponeRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  due: number,
  options: { requeues?: number } = {},
): Promise<boolean> {
  const index = dueIndex(run, due);
  const counted = options.requeues !== undefined;
  return updateIf(rt, {
    Key: keys.run(run.sessionId, run.runId),
    UpdateExpression: counted
      ? 'SET gsi1pk = :pk, gsi1sk = :sk, requeues = :n'
      : 'SET gsi1pk = :pk, gsi1sk = :sk',
    ConditionExpression: counted
      ? '#status = :queued AND (attribute_not_exists(requeues) OR requeues <= :n)'
      : '#status = :queued',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':queued': 'queued',
      ':pk': index.gsi1pk,
      ':sk': index.gsi1sk,
      ...(counted && { ':n': options.requeues }),
    },
  });
}

/** Hands a queued steering message to the running turn: queued → steered, one conditional write. */
export async function steerRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  into: string,
  now: number,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.run(run.sessionId, run.runId),
    UpdateExpression: 'SET #status = :steered, steeredInto = :into, endedAt = :at REMOVE gsi1pk, gsi1sk',
    // Or this very hand-over, applied already: the SDK retries a call whose answer was lost.
    ConditionExpression:
      '#status = :queued OR (#status = :steered AND steeredInto = :into AND endedAt = :at)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':steered': 'steered',
      ':queued': 'queued',
      ':into': into,
      ':at': new Date(now).toISOString(),
    },
  });
}

/** Gives up on a queued run that was queued again and again (its job keeps failing before any claim). */
export async function abandonQueuedRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  now: number,
): Promise<boolean> {
  return updateIf(rt, {
    Key: keys.run(run.sessionId, run.runId),
    UpdateExpression:
      'SET #status = :error, stopReason = :error, endedAt = :at, #error = :why REMOVE gsi1pk, gsi1sk',
    ConditionExpression: '#status = :queued OR (#status = :error AND endedAt = :at)',
    ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
    ExpressionAttributeValues: {
      ':error': 'error',
      ':queued': 'queued',
      ':at': new Date(now).toISOString(),
      ':why': { code: 'job_lost', message: 'The run could not be started.' },
    },
  });
}
