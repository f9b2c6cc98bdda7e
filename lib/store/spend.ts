import { PutItem, UpdateItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import { keys, ttlAt } from './keys.ts';
import { getSession, type SessionRecord } from './sessions.ts';
import { isConditionFailure, queryAll, updateIf } from './table.ts';

/**
 * How many of a session's last counted runs its item remembers. A run's spend is counted again only
 * by a later delivery of its own job, and a session's later runs start only once that job is done
 * (its FIFO group holds them), apart from those of the same batch (at most ten): twenty is ample.
 */
export const REMEMBERED_RUNS = 20;

/** How often a spend is tried again when another write to the session's spend came first. */
const ATTEMPTS = 5;

const DAY_MS = 24 * 3_600_000;

/**
 * Adds a run's cost to its session's `spentUsd`, once: the session item remembers the runs it
 * counted last (`spentRuns`), and the write is conditional on the spend it read (`spendVersion`),
 * so a run counted already is not counted again and two writers never count over each other.
 * Returns false when the run was counted already or the session is gone.
 */
export async function addSessionSpend(
  rt: Runtime,
  sessionId: string,
  runId: string,
  costUsd: number,
  known?: SessionRecord,
): Promise<boolean> {
  let session = known;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    session ??= await getSession(rt, sessionId, { includeDeleted: true });
    if (!session) return false;
    const seen = session.spentRuns ?? [];
    if (seen.includes(runId)) return false;
    const version = session.spendVersion ?? 0;
    const applied = await updateIf(rt, {
      Key: keys.session(sessionId),
      UpdateExpression:
        'SET spentUsd = if_not_exists(spentUsd, :zero) + :cost, spentRuns = :runs, spendVersion = :next',
      ConditionExpression:
        version === 0
          ? 'attribute_exists(pk) AND attribute_not_exists(spendVersion)'
          : 'attribute_exists(pk) AND spendVersion = :version',
      ExpressionAttributeValues: {
        ':zero': 0,
        ':cost': costUsd,
        ':runs': [...seen.slice(-(REMEMBERED_RUNS - 1)), runId],
        ':next': version + 1,
        ...(version !== 0 && { ':version': version }),
      },
    });
    if (applied) return true;
    session = undefined;
  }
  throw new Error(`The spend of run ${runId} met ${ATTEMPTS} other writes to its session's spend.`);
}

/**
 * Adds `usd` to what an operator gave a session beyond its agent's budget (`budgetAddedUsd`), in one
 * atomic write; the session's budget is then its agent's plus that. Answers the session's spend and
 * its new addition, or undefined when there is no such session (or it was deleted).
 */
export async function addSessionBudget(
  rt: Runtime,
  sessionId: string,
  usd: number,
): Promise<Pick<SessionRecord, 'owner' | 'tenant' | 'spentUsd' | 'budgetAddedUsd'> | undefined> {
  try {
    const { Attributes } = await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.session(sessionId),
        UpdateExpression: 'ADD budgetAddedUsd :usd',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
        ExpressionAttributeValues: { ':usd': usd },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = (Attributes ?? {}) as Partial<SessionRecord>;
    return {
      owner: String(item.owner),
      ...(item.tenant !== undefined && { tenant: item.tenant }),
      ...(item.spentUsd !== undefined && { spentUsd: item.spentUsd }),
      budgetAddedUsd: Number(item.budgetAddedUsd),
    };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * Records a run's cost in a rolling-day ledger (an owner's or a tenant's partition), once: the
 * entry's key is the run, so a second put changes nothing. `at` is when the run was accepted.
 */
export async function putDaySpend(
  rt: Runtime,
  partition: string,
  run: { runId: string; createdAt: string },
  costUsd: number,
): Promise<void> {
  try {
    await rt.db.send(
      new PutItem({
        TableName: rt.table,
        Item: {
          ...keys.daySpend(partition, run.createdAt, run.runId),
          type: 'spend',
          runId: run.runId,
          costUsd,
          ttl: ttlAt(Date.parse(run.createdAt) + DAY_MS + 3_600_000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** What a ledger's runs of the last 24 hours (before `now`) cost: one Query of its partition. */
export async function daySpend(rt: Runtime, partition: string, now: number): Promise<number> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': partition,
      ':from': keys.daySpend(partition, new Date(now - DAY_MS).toISOString(), '').sk,
      ':to': keys.daySpend(partition, '~', '').sk,
    },
    ProjectionExpression: 'costUsd',
  });
  return items.reduce((sum, item) => sum + (typeof item.costUsd === 'number' ? item.costUsd : 0), 0);
}
