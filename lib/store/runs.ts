import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { StopReason, Usage } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys } from './keys.ts';
import { decodeJson, encodeJson, isConditionFailure } from './table.ts';

/** Run fields stored as JSON text. */
export const RUN_JSON = ['usage'] as const;

/** Where a run is: queued by the API, running in a worker, or ended. */
export type RunStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'requires_action'
  | 'error'
  | 'cancelled'
  | 'incomplete';

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
}

/** Records a queued run; a second put of the same run (a retried request) changes nothing. */
export async function putRun(rt: Runtime, run: RunRecord): Promise<void> {
  try {
    await rt.db.send(
      new PutCommand({
        TableName: rt.table,
        Item: { ...keys.run(run.sessionId, run.runId), type: 'run', ...encodeJson(run, RUN_JSON) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** The run, read consistently. */
export async function getRun(rt: Runtime, sessionId: string, runId: string): Promise<RunRecord | undefined> {
  const { Item } = await rt.db.send(
    new GetCommand({ TableName: rt.table, Key: keys.run(sessionId, runId), ConsistentRead: true }),
  );
  return Item ? decodeJson<RunRecord>(Item, RUN_JSON) : undefined;
}

/**
 * Claims a queued run for one worker with a lease. Exactly one claim succeeds; the others (a
 * redelivered job, a second worker) get false and read the run to learn why.
 */
export async function claimRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  owner: string,
  now: number,
): Promise<boolean> {
  try {
    await rt.db.send(
      new UpdateCommand({
        TableName: rt.table,
        Key: keys.run(run.sessionId, run.runId),
        UpdateExpression:
          'SET #status = :running, startedAt = :at, leaseOwner = :owner, leaseExpiresAt = :exp',
        ConditionExpression: '#status = :queued',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':queued': 'queued',
          ':at': new Date(now).toISOString(),
          ':owner': owner,
          ':exp': now + rt.settings.runs.leaseMs,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The outcome of a run, written once by the worker that holds its lease. */
export interface RunOutcome {
  status: Exclude<RunStatus, 'queued' | 'running'>;
  stopReason: StopReason;
  error?: { code: string; message: string };
  usage?: Usage;
}

/**
 * Closes a run. The condition on the lease owner is the fence: a worker that lost its lease
 * cannot overwrite the outcome another one wrote. Returns false when fenced off.
 */
export async function finishRun(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  owner: string,
  outcome: RunOutcome,
  now: number,
): Promise<boolean> {
  try {
    await rt.db.send(
      new UpdateCommand({
        TableName: rt.table,
        Key: keys.run(run.sessionId, run.runId),
        UpdateExpression:
          'SET #status = :status, stopReason = :stop, endedAt = :at, #error = :error, #usage = :usage REMOVE leaseExpiresAt',
        ConditionExpression: 'leaseOwner = :owner AND #status = :running',
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', '#usage': 'usage' },
        ExpressionAttributeValues: {
          ':status': outcome.status,
          ':stop': outcome.stopReason,
          ':at': new Date(now).toISOString(),
          ':error': outcome.error ?? null,
          ':usage': outcome.usage ? JSON.stringify(outcome.usage) : null,
          ':owner': owner,
          ':running': 'running',
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
