import type { Switchboard } from '../agents/index.ts';
import { hostSessionId, lapseContext, ownerIdentity, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { AgentUnavailableError, FencedError, MissingItemError, RetryLaterError } from '../errors/index.ts';
import { publishEvents, turnFailed } from '../events/index.ts';
import {
  type CancelReason,
  claimRunOrFind,
  deleteBlobs,
  finishRun,
  getRun,
  getSession,
  lastSeq,
  type RunOutcome,
  type RunRecord,
  type SessionRecord,
  takeOverRun,
} from '../store/index.ts';
import { AGENT_ID, GEN_AI_AGENT_ID, GEN_AI_CONVERSATION_ID } from '../telemetry/gen-ai.ts';
import { addLogKeys, spanAttributes, spanEvent } from '../telemetry/index.ts';
import { withTracing } from '../telemetry/tracing.ts';
import { recordSpend } from '../usage/index.ts';
import { accountingOf, closingSpend } from './accounting.ts';
import { failTurn } from './call-agent.ts';
import { announceFailure, closeLostRun, closeWithError, FAILED } from './close.ts';
import { runContinue } from './continue.ts';
import { EventStream } from './event-stream.ts';
import { callCancelHook } from './hooks.ts';
import type { TurnJob } from './job.ts';
import { announceLeftBehind, runDelete, runLapse, runMessage, runResolve, runWithdraw } from './run-kinds.ts';
import { countTurnEnd, isTurn } from './turn-metrics.ts';
import type { RunScope } from './types.ts';
import { RunWatch, stopEvent } from './watch.ts';

/** How the worker runs one job. */
export interface RunTurnOptions {
  /** When to stop the run with `shutdown` (epoch ms), so that it closes before the invocation's timeout. */
  stopAt?: number;
}

/**
 * Runs one queued job exactly once. The conditional claim decides which delivery runs it; a
 * delivery that finds the run ended does nothing, so SQS's at-least-once delivery is harmless.
 */
export async function runTurn(
  rt: Runtime,
  app: Switchboard,
  job: TurnJob,
  workerId: string,
  options: RunTurnOptions = {},
): Promise<void> {
  const log = rt.logger.createChild({ persistentKeys: { sessionId: job.sessionId, runId: job.runId } });
  const claim = await claimRunOrFind(rt, job, workerId, rt.clock());
  if (!claim.claimed) {
    // The run as the refused claim found it (none: there is no such run).
    const { run } = claim;
    if (run?.status !== 'running') {
      log.info('Job for a run that is not queued: nothing to do', { status: run?.status });
      // Its worker may have ended it and died before counting its cost: counted now, once.
      if (run && run.status !== 'queued') await recordSpend(rt, run);
      return;
    }
    // The worker that claimed it stopped renewing its lease (it died or stalled): close the turn, never invoke again.
    if (!(await takeOverRun(rt, run, workerId, rt.clock())))
      throw new RetryLaterError(
        `Run ${job.runId} is held by ${run.leaseOwner}.`,
        (run.leaseExpiresAt ?? 0) - rt.clock(),
      );
    // The turn span of this delivery says whose run it took, and that it closes the run, never runs it.
    spanEvent('switchboard.lease.taken_over', {
      'switchboard.lease.previous_owner': run.leaseOwner,
      'switchboard.run.status': run.status,
    });
    // A delete is idempotent and never runs the agent: the new owner simply does it again.
    if (run.kind === 'delete') {
      await runClaimed(rt, app, job, workerId, log, options);
      return;
    }
    await closeLostRun(rt, app, run, workerId, log);
    return spendOfEnded(rt, job);
  }
  if (isTurn(job.kind)) rt.metrics.add('TurnsStarted', 1);
  let closed: Closed | undefined;
  try {
    closed = await runClaimed(rt, app, job, workerId, log, options);
    log.debug('Finished the run', { kind: job.kind });
  } catch (error) {
    // A delete never invokes the agent and is idempotent: let the queue try it again.
    if (job.kind === 'delete') throw error;
    // Past the claim a retry must not invoke the agent again: the turn is closed as error instead,
    // so a job that keeps failing cannot hold the session up.
    log.error('A claimed run failed; it is closed as error', { error });
    const failed = await closeWithError(rt, job, workerId, log, FAILED).catch((e: unknown) => {
      log.error('Could not close the run', { error: String(e) });
      return undefined;
    });
    await announceFailure(rt, job, failed);
  }
  // Outside the catch: a spend that could not be written fails the job, whose next delivery counts it.
  if (closed) {
    if (!closed.counted) await recordSpend(rt, closed.run, closed.session);
  } else if (job.kind !== 'delete') await spendOfEnded(rt, job);
}

/** A run this worker closed: with what it cost, its session as read when the run started, and whether it was counted. */
interface Closed {
  run: RunRecord;
  session: SessionRecord;
  counted: boolean;
}

/** Counts what a run cost once it has ended, however it ended (the writes are keyed by the run). */
async function spendOfEnded(rt: Runtime, job: TurnJob): Promise<void> {
  const run = await getRun(rt, job.sessionId, job.runId);
  if (run && run.status !== 'queued' && run.status !== 'running') await recordSpend(rt, run);
}

/** Runs a job whose run this worker holds: the agent (or the bookkeeping), then the run's outcome. */
async function runClaimed(
  rt: Runtime,
  app: Switchboard,
  job: TurnJob,
  workerId: string,
  log: Runtime['logger'],
  options: RunTurnOptions,
): Promise<Closed | undefined> {
  // The log's end first, then the run: a takeover after this read writes from the same seq as this
  // stream, and one of the two is fenced; a takeover before it shows in the run, and this worker
  // leaves it alone (it would otherwise write after the new owner's end, unfenced).
  const seq = await lastSeq(rt, job.sessionId);
  const run = await getRun(rt, job.sessionId, job.runId);
  const session = await getSession(rt, job.sessionId, { includeDeleted: true });
  if (!run || !session)
    throw new MissingItemError(
      `Run ${job.runId} of session ${job.sessionId} has no ${run ? 'session' : 'run'} item.`,
    );
  addLogKeys({ agentId: run.agentId });
  if (run.status !== 'running' || run.leaseOwner !== workerId) {
    log.info('The run was taken over before this worker started it: nothing to do', { status: run.status });
    return undefined;
  }
  // Ids and kinds only, like every line here: what a turn carries stays in the table and the bucket.
  log.debug('Claimed the run', { kind: job.kind });
  const stream = new EventStream(rt, job.sessionId, job.runId, seq);
  // A lapse found by the sweep asks the registry as the seed says: as the owner, for the system.
  const context =
    run.kind === 'lapse' ? lapseContext(session) : (run.context ?? requestContextOf(ownerIdentity(session)));
  const agent = await app.resolveAgent(run.agentId, context);
  // The turn as an agent's invocation: its agent, and the conversation as the host names it (never
  // the session ref's owner scope).
  spanAttributes({
    [AGENT_ID]: run.agentId,
    [GEN_AI_AGENT_ID]: agent ? run.agentId : undefined,
    [GEN_AI_CONVERSATION_ID]: hostSessionId(job.sessionId),
  });
  const accounting = accountingOf(rt, app, agent, run, session);
  const watch = new RunWatch(rt, run, workerId, options.stopAt).start();
  let outcome: RunOutcome;
  try {
    if (run.cancelRequested) {
      // Cancelled before a worker picked it up: the turn ends here, the agent is never called.
      spanEvent(...stopEvent(run.cancelRequested));
      if ((run.kind ?? 'turn') === 'turn') await announceLeftBehind({ rt, run, stream, agent });
      stream.append('session.status_idle', {
        status: 'cancelled',
        stop_reason: 'cancelled',
        detail: { reason: run.cancelRequested },
        ...closingSpend(accounting.spentUsd, undefined),
      });
      outcome = { status: 'cancelled', stopReason: 'cancelled' };
    } else if (run.kind === 'lapse' || run.kind === 'withdraw' || run.kind === 'delete') {
      // Bookkeeping needs no agent; without one the cancel hook is simply not called.
      const bookkeeping = { rt, app, agent, run, session, stream, context, log, accounting };
      outcome =
        run.kind === 'lapse'
          ? await runLapse(bookkeeping)
          : run.kind === 'withdraw'
            ? await runWithdraw(bookkeeping)
            : await runDelete(bookkeeping);
    } else if (!agent) {
      stream.append('session.status_running', { kind: run.kind ?? 'turn' });
      log.error('The run names an agent that is not registered', { agentId: run.agentId });
      outcome = failTurn(stream, new AgentUnavailableError(run.agentId), accounting);
    } else {
      const stopping = {
        watch,
        graceMs: rt.settings.runs.cancelGraceMs,
        onStop: (reason: CancelReason) =>
          callCancelHook(rt, agent, { conversationId: run.sessionId, runId: run.runId, reason }),
      };
      const scope: RunScope = {
        rt,
        app,
        agent,
        hitl: app.hitlFor(agent),
        run,
        session,
        stream,
        context,
        log,
        stopping,
        accounting,
      };
      // The agent's model calls and tools make their spans in the runtime's tracing.
      outcome = await withTracing(rt, () =>
        run.kind === 'resolve'
          ? runResolve(scope)
          : run.kind === 'continue'
            ? runContinue(scope)
            : runMessage(scope),
      );
    }
  } catch (error) {
    // The turn is closed as error by a new writer (see runTurn): nothing gathered here may follow it.
    stream.abandon();
    throw error;
  } finally {
    watch.end();
  }
  await stream.drain().catch((error: unknown) => {
    // Fenced: another worker owns the run now and closes it. Any other failure leaves the log short
    // of this turn's end: the run is closed as error instead (see runTurn), so the log says so.
    if (!(error instanceof FencedError)) throw error;
    log.warn('Fenced off the event log', { error: String(error) });
  });
  const now = rt.clock();
  const finished = await finishRun(rt, job, workerId, outcome, now);
  if (!finished) {
    // A delete run removes its own run item last, with the session: there is no outcome to write.
    if (run.kind === 'delete') log.debug('The session is deleted; its delete run left no run item');
    else log.warn('Lost the lease before the outcome was written; it was discarded');
  } else {
    countTurnEnd(rt, run, outcome, { now, firstEventAt: stream.firstEventAt });
    await publishEvents(rt, [turnFailed(session, run.runId, outcome)]);
  }
  // Screenshots are not stored: they lived only for this turn (the bucket's lifecycle rule is the backstop).
  if (run.screenshots?.length) await deleteBlobs(rt, run.screenshots).catch(() => undefined);
  // Only the worker whose outcome was written counts the run's cost: a fenced-off one never does.
  return finished
    ? { run: { ...run, usage: outcome.usage }, session, counted: accounting.counted }
    : undefined;
}
