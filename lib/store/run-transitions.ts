import type { Runtime } from '../config/index.ts';
import { getBlob, INLINE_LIMIT_BYTES, isMissingObject, jsonBytes, putBlob } from './blobs.ts';
import { keys } from './keys.ts';
import {
  abandon,
  cancel,
  claim,
  finish,
  interrupt,
  keepResume,
  postpone,
  renew,
  requeue,
  steer,
  takeOver,
} from './run-machine.ts';
import { type CancelReason, dueIndex, RUN_JSON, type RunOutcome, type RunRecord } from './runs.ts';
import { applyTransition, batchGet, decodeJson, type Written } from './table.ts';

/*
 * The transitions of a run after it was queued (run-machine.ts lists them), each one conditional
 * write on the run item: its claim and outcome, stopping it, its lease, a takeover, steering, and
 * the sweep's bookkeeping.
 */

type RunKey = Pick<RunRecord, 'sessionId' | 'runId'>;
const runKey = (run: RunKey) => keys.run(run.sessionId, run.runId);
const at = (now: number) => new Date(now).toISOString();

/** The run as a write left it or, refused, found it (none: there is no such run). */
const runOf = ({ item }: Written) => (item ? decodeJson<RunRecord>(item, RUN_JSON) : undefined);

/**
 * Claims a queued run for one worker with a lease. Exactly one claim succeeds; the others (a
 * redelivered job, a second worker) learn why from the run as their refused claim found it.
 */
export async function claimRunOrFind(
  rt: Runtime,
  run: RunKey,
  owner: string,
  now: number,
): Promise<{ claimed: boolean; run?: RunRecord }> {
  const written = await applyTransition(rt, claim, runKey(run), {
    startedAt: at(now),
    leaseOwner: owner,
    leaseExpiresAt: now + rt.settings.runs.leaseMs,
  });
  return { claimed: written.applied, run: runOf(written) };
}

/** {@link claimRunOrFind}, only whether it was claimed. */
export async function claimRun(rt: Runtime, run: RunKey, owner: string, now: number): Promise<boolean> {
  return (await claimRunOrFind(rt, run, owner, now)).claimed;
}

/**
 * Closes a run. The condition on the lease owner is the fence: a worker that lost its lease
 * cannot overwrite the outcome another one wrote. Returns false when fenced off.
 */
export async function finishRun(
  rt: Runtime,
  run: RunKey,
  owner: string,
  outcome: RunOutcome,
  now: number,
): Promise<boolean> {
  const written = await applyTransition(
    rt,
    finish,
    runKey(run),
    {
      stopReason: outcome.stopReason,
      endedAt: at(now),
      error: outcome.error ?? null,
      usage: outcome.usage ? JSON.stringify(outcome.usage) : null,
      leaseOwner: owner,
    },
    { to: outcome.status },
  );
  return written.applied;
}

/**
 * Where a stopped run's resume state larger than {@link INLINE_LIMIT_BYTES} is kept: beside the
 * session's large requests (`actions/<sessionId>/`), so it has their lifetime (the bucket's
 * retention rule) and goes with the session.
 */
const resumeBlobKey = (run: RunKey) => `actions/${run.sessionId}/${run.runId}.resume.json`;

/**
 * Keeps with a running run, before its outcome is written, what its agent's loop needs to carry on
 * the turn it stopped (see {@link RunRecord.resume}): inline, or in the bucket when large; with the
 * turn's span as a `traceparent` (`stoppedIn`), when it has one. Returns false when fenced off (the
 * lease is another worker's).
 */
export async function keepRunResume(
  rt: Runtime,
  run: RunKey,
  owner: string,
  resume: Record<string, unknown>,
  stoppedIn?: string,
): Promise<boolean> {
  let values = { resume: JSON.stringify(resume), resumeKey: null as string | null };
  if (jsonBytes(resume) > INLINE_LIMIT_BYTES) {
    const key = resumeBlobKey(run);
    await putBlob(rt, key, resume);
    values = { resume: null as unknown as string, resumeKey: key };
  }
  const written = await applyTransition(rt, keepResume, runKey(run), {
    ...values,
    stoppedIn: stoppedIn ?? null,
    leaseOwner: owner,
  });
  return written.applied;
}

/** What a stopped run kept to carry its loop on (read back from the bucket when moved there); none when it kept nothing. */
export async function runResume(rt: Runtime, run: RunRecord): Promise<Record<string, unknown> | undefined> {
  if (run.resume) return run.resume;
  if (!run.resumeKey) return undefined;
  try {
    return await getBlob<Record<string, unknown>>(rt, run.resumeKey);
  } catch (error) {
    // Moved away by the bucket's retention: nothing is left to carry on.
    if (isMissingObject(error)) return undefined;
    throw error;
  }
}

/** Asks the worker of a queued or running run to stop it. Returns the run, or undefined when it already ended. */
export async function requestCancel(
  rt: Runtime,
  run: RunKey,
  reason: CancelReason,
): Promise<RunRecord | undefined> {
  const written = await applyTransition(rt, cancel, runKey(run), { cancelRequested: reason });
  return written.applied ? runOf(written) : undefined;
}

/**
 * Stops a queued or running run for a message sent with `on_busy: "interrupt"` (run `by`): like a
 * cancel (reason `user`), and marked with who interrupted it. One conditional write; a run someone
 * else already stopped is left as it is, and a retry of the same interrupt finds its own mark.
 * Returns whether the run is now marked as interrupted by `by`.
 */
export async function requestInterrupt(rt: Runtime, run: RunKey, by: string): Promise<boolean> {
  const written = await applyTransition(rt, interrupt, runKey(run), {
    cancelRequested: 'user',
    interruptedBy: by,
  });
  return written.applied;
}

/**
 * Renews the lease of a running run this worker owns, and reads in the same write whether a stop
 * was asked for: the run's `cancelRequested` (none: `{}`), or undefined when the lease is not this
 * worker's any more.
 */
export async function renewLease(
  rt: Runtime,
  run: RunKey,
  owner: string,
  now: number,
): Promise<{ cancelRequested?: CancelReason } | undefined> {
  const written = await applyTransition(rt, renew, runKey(run), {
    leaseExpiresAt: now + rt.settings.runs.leaseMs,
    leaseOwner: owner,
  });
  if (!written.applied) return undefined;
  const cancelRequested = written.item?.cancelRequested as CancelReason | undefined;
  return cancelRequested ? { cancelRequested } : {};
}

/**
 * Which of some runs were asked to stop, and why: eventually consistent reads of one attribute
 * (half a read unit each), up to 100 runs in one BatchGetItem, which is what a worker polls while
 * its agents work. A stop written a moment ago may be seen one poll later; the lease renewal reads
 * it strongly. A run whose read DynamoDB left unprocessed is read at the next poll.
 */
export async function cancelRequestsOf(
  rt: Runtime,
  runs: readonly RunKey[],
): Promise<Map<string, CancelReason>> {
  const found = new Map<string, CancelReason>();
  const { items } = await batchGet(rt, runs.map(runKey), 'runId, cancelRequested');
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
export async function takeOverRun(rt: Runtime, run: RunKey, owner: string, now: number): Promise<boolean> {
  const written = await applyTransition(rt, takeOver, runKey(run), {
    leaseOwner: owner,
    leaseExpiresAt: now + rt.settings.runs.leaseMs,
    now,
  });
  return written.applied;
}

/**
 * Moves a still-queued run's next check later (after the sweep queued it again), and with
 * `requeues` records how often it was queued again (see the `requeue` transition).
 */
export async function postponeRun(
  rt: Runtime,
  run: RunKey,
  due: number,
  options: { requeues?: number } = {},
): Promise<boolean> {
  const index = dueIndex(rt, run, due);
  const written =
    options.requeues === undefined
      ? await applyTransition(rt, postpone, runKey(run), index)
      : await applyTransition(rt, requeue, runKey(run), { ...index, requeues: options.requeues });
  return written.applied;
}

/** Hands a queued steering message to the running turn: queued → steered, one conditional write. */
export async function steerRun(rt: Runtime, run: RunKey, into: string, now: number): Promise<boolean> {
  const written = await applyTransition(rt, steer, runKey(run), { steeredInto: into, endedAt: at(now) });
  return written.applied;
}

/** Gives up on a queued run that was queued again and again (its job keeps failing before any claim). */
export async function abandonQueuedRun(rt: Runtime, run: RunKey, now: number): Promise<boolean> {
  const written = await applyTransition(rt, abandon, runKey(run), {
    stopReason: 'error',
    endedAt: at(now),
    error: { code: 'job_lost', message: 'The run could not be started.' },
  });
  return written.applied;
}
