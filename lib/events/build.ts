import { hostSessionId } from '../auth/index.ts';
import type { ActionRecord, RunOutcome, SessionRecord } from '../store/index.ts';
import type { BudgetScope } from '../usage/index.ts';
import type { DetailOf, DomainEvent } from './schema.ts';

/**
 * The largest request a `Pause Opened` carries: EventBridge takes 256 KB per entry, and the rest
 * of the detail is small. A larger one is left out (`requestOmitted`) and read from the session.
 */
const MAX_REQUEST_BYTES = 200 * 1024;

/** The fields every event about a session has. */
function sessionFields(session: SessionRecord) {
  return {
    version: 1 as const,
    sessionId: hostSessionId(session.sessionId),
    sessionRef: session.sessionId,
    owner: session.owner,
    tenant: session.tenant ?? null,
    agentId: session.agentId,
  };
}

/** The path an answer to `action` is posted to; a reviewer names the session by its ref. */
export function answerPath(action: Pick<ActionRecord, 'sessionId' | 'actionId'>): string {
  return `/api/sessions/${encodeURIComponent(action.sessionId)}/actions/${encodeURIComponent(action.actionId)}`;
}

function pauseFields(session: SessionRecord, action: ActionRecord) {
  return {
    ...sessionFields(session),
    runId: action.runId,
    messageId: action.messageId,
    actionId: action.actionId,
    kind: action.kind,
    answerPath: answerPath(action),
    expiresAt: new Date(action.expiresAt).toISOString(),
  };
}

/** `Pause Opened` for a request that is now pending. */
export function pauseOpened(session: SessionRecord, action: ActionRecord): DomainEvent {
  const fits = Buffer.byteLength(JSON.stringify(action.action)) <= MAX_REQUEST_BYTES;
  const detail: DetailOf<'Pause Opened'> = {
    ...pauseFields(session, action),
    request: fits ? action.action : null,
    requestOmitted: !fits,
  };
  return { detailType: 'Pause Opened', detail };
}

/** `Pause Expiring` for a pending request that lapses within `leadMinutes`. */
export function pauseExpiring(
  session: SessionRecord,
  action: ActionRecord,
  leadMinutes: number,
): DomainEvent {
  return { detailType: 'Pause Expiring', detail: { ...pauseFields(session, action), leadMinutes } };
}

/** `Pause Resolved` for a request decided by an answer, or withdrawn or superseded without one. */
export function pauseResolved(
  session: SessionRecord,
  action: ActionRecord,
  now: number,
): DomainEvent | undefined {
  if (action.status !== 'resolved' && action.status !== 'cancelled' && action.status !== 'superseded')
    return undefined;
  const decision = action.resolution?.decision;
  return {
    detailType: 'Pause Resolved',
    detail: {
      ...pauseFields(session, action),
      status: action.status,
      actor: action.actor ?? 'system',
      channel: action.channel ?? 'system',
      decision: decision === 'approve' || decision === 'deny' ? decision : null,
      resolvedAt: action.resolvedAt ?? new Date(now).toISOString(),
    },
  };
}

/** `Pause Lapsed` for a request the sweep decided under `hitl.onTimeout`. */
export function pauseLapsed(session: SessionRecord, action: ActionRecord, now: number): DomainEvent {
  return {
    detailType: 'Pause Lapsed',
    detail: {
      ...pauseFields(session, action),
      outcome: action.status === 'resolved' ? 'denied' : 'withdrawn',
      resolvedAt: action.resolvedAt ?? new Date(now).toISOString(),
    },
  };
}

/** `Turn Failed` for a run whose outcome is an error; undefined for any other outcome. */
export function turnFailed(
  session: SessionRecord,
  runId: string,
  outcome: RunOutcome,
): DomainEvent | undefined {
  if (outcome.status !== 'error' && !(outcome.status === 'incomplete' && outcome.stopReason === 'error'))
    return undefined;
  return {
    detailType: 'Turn Failed',
    detail: {
      ...sessionFields(session),
      runId,
      status: outcome.status,
      stopReason: outcome.stopReason,
      error: outcome.error ?? null,
    },
  };
}

/** `Budget Reached` for a turn whose cost reached a budget of `scope`. */
export function budgetReachedEvent(
  session: SessionRecord,
  runId: string,
  reached: { scope: BudgetScope; limitUsd: number; turnCostUsd: number; sessionSpentUsd: number },
): DomainEvent {
  return { detailType: 'Budget Reached', detail: { ...sessionFields(session), runId, ...reached } };
}
