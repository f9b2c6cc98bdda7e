import type { HostAgentRegistration, ResolvedHitl, Switchboard } from '../agents/index.ts';
import { requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { SwitchboardError } from '../errors/index.ts';
import {
  claimRun,
  deleteBlobs,
  finishRun,
  getRun,
  getSession,
  lastSeq,
  type RunOutcome,
  type RunRecord,
  type SessionRecord,
} from '../store/index.ts';
import { failTurn } from './call-agent.ts';
import { EventStream } from './event-stream.ts';
import type { TurnJob } from './job.ts';
import { runLapse, runMessage, runResolve } from './run-kinds.ts';

/** Thrown when a job cannot run yet (its run is held by a live lease): the queue retries it. */
export class RetryLaterError extends Error {
  override name = 'RetryLaterError';
}

/** What every kind of run works with. */
export interface RunScope {
  rt: Runtime;
  app: Switchboard;
  agent: HostAgentRegistration;
  hitl: ResolvedHitl;
  run: RunRecord;
  session: SessionRecord;
  stream: EventStream;
  context: ReturnType<typeof requestContextOf>;
  log: Runtime['logger'];
}

/**
 * Runs one queued job exactly once. The conditional claim decides which delivery runs it; a
 * delivery that finds the run ended does nothing, so SQS's at-least-once delivery is harmless.
 */
export async function runTurn(rt: Runtime, app: Switchboard, job: TurnJob, workerId: string): Promise<void> {
  const log = rt.logger.createChild({ persistentKeys: { sessionId: job.sessionId, runId: job.runId } });
  if (!(await claimRun(rt, job, workerId, Date.now()))) {
    const run = await getRun(rt, job.sessionId, job.runId);
    if (run?.status === 'running')
      throw new RetryLaterError(`Run ${job.runId} is held by ${run.leaseOwner}.`);
    log.info('Job for a run that is not queued: nothing to do', { status: run?.status });
    return;
  }
  const run = (await getRun(rt, job.sessionId, job.runId)) as RunRecord;
  const session = (await getSession(rt, job.sessionId)) as SessionRecord;
  const stream = new EventStream(rt, job.sessionId, job.runId, await lastSeq(rt, job.sessionId));
  // A lapse found by the sweep asks the registry as the seed says: as the owner, for the system.
  const context =
    run.kind === 'lapse'
      ? { user: { id: session.owner }, data: { system: true, timeout: true } }
      : requestContextOf({ user: session.owner, data: {} });
  const agent = await app.resolveAgent(run.agentId, context);
  let outcome: RunOutcome;
  if (run.kind === 'lapse') {
    // Withdrawing a lapsed request needs no agent; without one the cancel hook is simply not called.
    outcome = await runLapse({ rt, app, agent, run, session, stream, context, log });
  } else if (!agent) {
    stream.append('session.status_running', { kind: run.kind ?? 'turn' });
    outcome = failTurn(
      stream,
      new SwitchboardError('agent_not_found', `No agent "${run.agentId}" is registered.`, 500, 'internal'),
    );
  } else {
    const scope: RunScope = { rt, app, agent, hitl: app.hitlFor(agent), run, session, stream, context, log };
    outcome = run.kind === 'resolve' ? await runResolve(scope) : await runMessage(scope);
  }
  await stream
    .drain()
    .catch((error: unknown) => log.warn('The event log could not be completed', { error: String(error) }));
  if (!(await finishRun(rt, job, workerId, outcome, Date.now()))) {
    log.warn('Lost the lease before the outcome was written; it was discarded');
  }
  // Screenshots are not stored: they lived only for this turn (the bucket's lifecycle rule is the backstop).
  if (run.screenshots?.length) await deleteBlobs(rt, run.screenshots).catch(() => undefined);
}
