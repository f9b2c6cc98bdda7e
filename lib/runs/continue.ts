import type { Switchboard } from '../agents/index.ts';
import { hostSessionId, type Identity, ownerOf, requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { CONTINUABLE_STOPS, type HostResult } from '../contract/index.ts';
import { SessionConflictError, TenantSuspendedError } from '../errors/index.ts';
import { conversationFiles, sessionFiles } from '../files/index.ts';
import { newId } from '../ids/index.ts';
import { ownedSession } from '../sessions/index.ts';
import {
  findRequest,
  getRun,
  getSuspension,
  keepRunResume,
  listMessages,
  listRuns,
  putRun,
  type RunOutcome,
  type RunRecord,
  runResume,
  type SessionRecord,
  touchSession,
} from '../store/index.ts';
import { addLogKeys, currentTraceparent } from '../telemetry/index.ts';
import { checkBudgets, sessionBudget } from '../usage/index.ts';
import { historyMessage, rememberedToolsOf } from './agent-input.ts';
import { partsReader } from './attachment-parts.ts';
import { callAgent, failTurn } from './call-agent.ts';
import { enqueue } from './job.ts';
import { recordRequestRun } from './record-request.ts';
import { settle } from './settle.ts';
import { takeSteering } from './steering.ts';
import { toolsForTurn } from './tools.ts';
import { type Accepted, acceptedOf, type BeforeEnqueue, type RunScope } from './types.ts';

/*
 * Continuing a turn whose loop stopped at `max_turns` or `budget_reached`
 * (`POST /api/sessions/{id}/continue`, `assistant_continue`): a `continue` run calls the agent's
 * `continueTurn` with what the stopped run kept (its result's `resume`), so the loop goes on from
 * where it stopped, with no new user message. Its answer is a new assistant message of its own.
 */

/** The runs that carry a conversation on: a message's turn, an answer's, a continued one (not bookkeeping). */
const carriesOn = (r: RunRecord) =>
  (r.kind === undefined || r.kind === 'turn' || r.kind === 'resolve' || r.kind === 'continue') &&
  r.status !== 'steered';

/** Whether a run ended with a loop that can be carried on. */
const isContinuable = (r: RunRecord) =>
  r.status === 'incomplete' &&
  (CONTINUABLE_STOPS as readonly string[]).includes(r.stopReason ?? '') &&
  // Kept inline or in the bucket (the other attribute is null).
  Boolean(r.resume ?? r.resumeKey);

const nothingToContinue = (sessionId: string, why: string) =>
  new SessionConflictError(
    'nothing_to_continue',
    `Session "${hostSessionId(sessionId)}" has nothing to continue: ${why}.`,
  );

/**
 * The stopped run a continue carries on: the session's last turn, when it stopped at `max_turns` or
 * `budget_reached` with a loop kept to resume. `before`: only the runs queued before that one (the
 * worker asks so for its own run; later ones are behind it).
 */
async function stoppedTurn(rt: Runtime, sessionId: string, before?: string): Promise<RunRecord> {
  const runs = (await listRuns(rt, sessionId))
    .filter((r) => carriesOn(r) && (before === undefined || r.runId < before))
    .sort((a, b) => a.runId.localeCompare(b.runId));
  const last = runs.at(-1);
  if (!last) throw nothingToContinue(sessionId, 'it has no turn');
  if (last.status === 'queued' || last.status === 'running')
    throw nothingToContinue(sessionId, `its last turn ${last.runId} is ${last.status}`);
  if (!isContinuable(last))
    throw nothingToContinue(
      sessionId,
      `its last turn ${last.runId} ended ${last.status} (${last.stopReason ?? 'no stop reason'}), not stopped at max_turns or budget_reached with a loop to resume`,
    );
  return last;
}

/** What a continue asks: the session, and its request id (one sent without gets one here). */
export interface ContinueRequest {
  session_id: string;
  id?: string;
}

/**
 * Continues the caller's session's last turn, stopped at `max_turns` or `budget_reached`: checked
 * (the ownership gate, a suspended tenant, a spent budget, the last turn and its agent), then
 * recorded and queued as a `continue` run. A retry of the request id answers the run the first
 * send queued, whatever happened since.
 */
export async function submitContinue(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ContinueRequest,
  beforeEnqueue?: BeforeEnqueue,
): Promise<Accepted> {
  const session = await ownedSession(rt, identity, request.session_id);
  const { sessionId } = session;
  const requestId = request.id ?? newId('req');
  addLogKeys({ sessionId, agentId: session.agentId, requestId });
  const applied = await findRequest(rt, sessionId, requestId);
  const stopped = applied
    ? await continuedBy(rt, sessionId, applied.runId)
    : await checkContinue(rt, app, identity, session, requestId);
  // A continued turn stores no user message: it answers the stopped turn's.
  const { first, record } = await recordRequestRun(rt, sessionId, requestId, stopped.userMessageId);
  const { runId, userMessageId, assistantMessageId, createdAt } = record;
  await putRun(rt, {
    runId,
    sessionId,
    requestId,
    agentId: session.agentId,
    userMessageId,
    assistantMessageId,
    status: 'queued',
    createdAt,
    kind: 'continue',
    continues: stopped.runId,
    context: requestContextOf(identity),
    // The continue's turn links the turn it carries on: one walks from the stop to what followed.
    ...(stopped.stoppedIn && { follows: stopped.stoppedIn }),
  });
  await touchSession(rt, sessionId);
  await beforeEnqueue?.(sessionId);
  await enqueue(rt, {
    v: 1,
    kind: 'continue',
    sessionId,
    runId,
    requestId,
    ...(stopped.stoppedIn && { follows: stopped.stoppedIn }),
  });
  return acceptedOf({
    requestId,
    sessionId,
    runId,
    messageId: userMessageId,
    assistantMessageId,
    duplicate: !first,
  });
}

/**
 * The run a continue already recorded carries on (a retry of its request id): the one its run names,
 * or (a crash came between the record and the run) the last turn, as the first send found it.
 */
async function continuedBy(rt: Runtime, sessionId: string, runId: string): Promise<RunRecord> {
  const continues = (await getRun(rt, sessionId, runId))?.continues;
  const stopped = continues ? await getRun(rt, sessionId, continues) : undefined;
  return stopped ?? stoppedTurn(rt, sessionId);
}

/** The checks of a new continue, before anything is written; answers the stopped run. */
async function checkContinue(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  session: SessionRecord,
  requestId: string,
): Promise<RunRecord> {
  const { sessionId } = session;
  const agent = await app.resolveAgent(session.agentId, requestContextOf(identity));
  const { tenant } = ownerOf(identity);
  if (tenant !== undefined && (await getSuspension(rt, tenant))) throw new TenantSuspendedError(tenant);
  const stopped = await stoppedTurn(rt, sessionId);
  // A host agent's loop is its own: nothing hands it back to be carried on.
  if (!agent?.definition.continueTurn)
    throw nothingToContinue(sessionId, `agent "${session.agentId}" cannot continue a turn`);
  await checkBudgets(rt, ownerOf(identity), {
    sessionId,
    session,
    budgetUsd: sessionBudget(app.budgetFor(agent), session),
    requestId,
  });
  return stopped;
}

/**
 * Keeps with the run what its agent's loop needs to carry on a turn it stopped (`result.resume`),
 * when the turn ended so: before the outcome is written, by the worker that holds the lease. The
 * turn's span goes with it (the current span), for the `continue` run to link.
 */
export async function keepResume(scope: RunScope, result: HostResult, outcome: RunOutcome): Promise<void> {
  if (!result.resume || outcome.status !== 'incomplete') return;
  if (!(CONTINUABLE_STOPS as readonly string[]).includes(outcome.stopReason)) return;
  const { rt, run } = scope;
  if (!run.leaseOwner) return;
  await keepRunResume(rt, run, run.leaseOwner, result.resume, currentTraceparent());
}

/** A continued turn: the stopped run's loop handed back to the agent's `continueTurn`. */
export async function runContinue(scope: RunScope): Promise<RunOutcome> {
  const { rt, agent, run, session, stream, log } = scope;
  stream.append('session.status_running', {
    kind: 'continue',
    ...(run.continues && { continues: run.continues }),
  });
  // Checked again: a message or another continue may have come first.
  let stopped: RunRecord;
  try {
    stopped = await stoppedTurn(rt, run.sessionId, run.runId);
    if (stopped.runId !== run.continues)
      throw nothingToContinue(run.sessionId, `its last turn is ${stopped.runId}, not ${run.continues}`);
  } catch (error) {
    if (!(error instanceof SessionConflictError)) throw error;
    return failTurn(stream, error, scope.accounting);
  }
  const resume = await runResume(rt, stopped);
  const continueTurn = agent.definition.continueTurn?.bind(agent.definition);
  if (!resume || !continueTurn)
    return failTurn(
      stream,
      nothingToContinue(run.sessionId, 'the stopped turn kept nothing its agent can resume'),
      scope.accounting,
    );
  const messages = await listMessages(rt, run.sessionId, { current: true });
  const history = await Promise.all(messages.map((m) => historyMessage(rt, m)));
  const files = sessionFiles(rt, await conversationFiles(rt, messages));
  const hostContext = session.hostContext;
  const tools = toolsForTurn(rt.settings.tools, agent.definition.tools ?? [], hostContext, (m, d) =>
    log.warn(m, d),
  );
  const hostTools = new Set(tools.host.map((t) => t.name));
  const rememberedTools = await rememberedToolsOf(rt, agent, session);
  const called = await callAgent(
    { log, metrics: rt.metrics },
    stream,
    run.assistantMessageId,
    hostTools,
    (guarded) =>
      continueTurn(
        {
          conversationId: run.sessionId,
          runId: run.runId,
          stoppedRunId: stopped.runId,
          resume,
          metadata: session.metadata ?? {},
          context: scope.context,
          hostContext: hostContext ?? null,
          history,
          tools,
        },
        {
          ...guarded,
          files,
          // A continued turn carries no screenshot: they lived only for the turn that was sent with them.
          lookAtScreen: async () => [],
          rememberedTools,
          parts: partsReader(rt, run.sessionId, [], messages),
          takeSteering: () =>
            takeSteering(rt, run, (m) =>
              stream.append('user.message', {
                message_id: m.id,
                content: m.content,
                steered_into: run.runId,
              }),
            ),
          secret: rt.secret,
        },
      ),
    scope.stopping,
    scope.accounting,
  );
  if (scope.stopping.watch.reason === 'lease_lost')
    return {
      status: 'incomplete',
      stopReason: 'error',
      error: { code: 'lease_lost', message: 'Another worker took this run over.' },
    };
  if (!called.ok) return called.outcome;
  const outcome = await settle(scope, called.result, called.state, { kind: 'turn' });
  await keepResume(scope, called.result, outcome);
  return outcome;
}
