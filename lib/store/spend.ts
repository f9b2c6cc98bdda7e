import { UpdateItem } from '../aws/index.ts';
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

const HOUR_MS = 3_600_000;

/** The UTC hour of an instant, as the ledger's sort keys name it (`2026-12-08T01`). */
function hourOf(at: number): string {
  return new Date(at).toISOString().slice(0, 13);
}

/**
 * Adds a run's cost to its hour's bucket in a rolling-day ledger (an owner's or a tenant's
 * partition), once: one conditional UpdateItem, no read. The bucket is the hour the run was
 * accepted in (`createdAt`). It remembers the runs it counted whose session has not counted them
 * yet (`counting`), and refuses a run it remembers, so a retry between this write and the session's
 * (which remembers the run in `spentRuns`) counts nothing twice; once the session has counted it,
 * {@link settleDaySpend} lets the bucket forget it, so the bucket stays a few hundred bytes whatever
 * the hour's runs. Returns false when the bucket had counted the run already.
 */
export async function addDaySpend(
  rt: Runtime,
  partition: string,
  run: { runId: string; createdAt: string },
  costUsd: number,
): Promise<boolean> {
  const accepted = Date.parse(run.createdAt);
  return updateIf(rt, {
    Key: keys.spendHour(partition, hourOf(accepted)),
    UpdateExpression: 'ADD costUsd :cost, counting :run SET #type = :type, #ttl = :ttl',
    ConditionExpression: 'NOT contains(counting, :id)',
    ExpressionAttributeNames: { '#type': 'type', '#ttl': 'ttl' },
    ExpressionAttributeValues: {
      ':cost': costUsd,
      ':run': new Set([run.runId]),
      ':id': run.runId,
      ':type': 'spendHour',
      // Read for 25 hours from the hour's start (see daySpend); an hour more before it expires.
      ':ttl': ttlAt(Math.floor(accepted / HOUR_MS) * HOUR_MS + DAY_MS + 2 * HOUR_MS),
    },
  });
}

/**
 * Lets a bucket forget a run its session has counted (see {@link addDaySpend}). Best effort: a
 * run it keeps remembering costs the bucket some bytes until it expires, never a wrong sum.
 */
export async function settleDaySpend(
  rt: Runtime,
  partition: string,
  run: { runId: string; createdAt: string },
): Promise<void> {
  try {
    await rt.db.send(
      new UpdateItem({
        TableName: rt.table,
        Key: keys.spendHour(partition, hourOf(Date.parse(run.createdAt))),
        UpdateExpression: 'DELETE counting :run',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':run': new Set([run.runId]) },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error))
      rt.logger.warn('Could not settle a run in its spend bucket: it stays remembered there', {
        runId: run.runId,
        error: String(error),
      });
  }
}

/**
 * What a ledger's last day cost: the buckets of the current UTC hour and of the 24 before it (at
 * most 25 items, read by one Query of one range of the partition, whatever the day's runs). A run's
 * cost therefore leaves the sum at the end of the hour 24 hours after the hour it was accepted in:
 * between 24 and 25 hours after it was accepted, never sooner (a budget is a safety limit: it errs
 * toward counting). The same range holds the items a run of the ledger before hour buckets wrote
 * (`SPEND#<accepted at>#<run id>`), so a deployment updated in place keeps counting the runs of the
 * day before its update, for that one day.
 */
export async function daySpend(rt: Runtime, partition: string, now: number): Promise<number> {
  const items = await queryAll(rt, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': partition,
      ':from': keys.spendHour(partition, hourOf(now - DAY_MS)).sk,
      ':to': `${keys.spendHour(partition, hourOf(now)).sk}~`,
    },
    ProjectionExpression: 'costUsd',
  });
  return items.reduce((sum, item) => sum + (typeof item.costUsd === 'number' ? item.costUsd : 0), 0);
}
