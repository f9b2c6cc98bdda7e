import { isDeepStrictEqual } from 'node:util';
import type { ResolvedHitl } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { PendingAction } from '../contract/index.ts';
import { type ActionRecord, decideAction, putAction } from '../store/index.ts';

/** What a run's result does to the session's open requests. */
export interface PauseChange {
  /** Newly asked, on this run's message; the first host call is pending, later ones queued. */
  asked: ActionRecord[];
  /** Open requests the result did not carry on: withdrawn (cancelled, by system). */
  withdrawn: ActionRecord[];
  /** Open requests carried on unchanged: they stay where they were asked. */
  kept: ActionRecord[];
}

function recordOf(
  asked: PendingAction,
  where: { sessionId: string; runId: string; messageId: string },
  hitl: ResolvedHitl,
  now: number,
  status: 'pending' | 'queued',
): ActionRecord {
  return {
    actionId: asked.id,
    sessionId: where.sessionId,
    runId: where.runId,
    messageId: where.messageId,
    kind: asked.type,
    action: asked as Record<string, unknown>,
    status,
    createdAt: new Date(now).toISOString(),
    expiresAt: asked.expiresAt ? Date.parse(asked.expiresAt) : now + hitl.timeoutMinutes * 60_000,
  };
}

/**
 * Applies a result's pending actions to the session's open requests. With `replaces` (a result
 * that named its pendingActions, or any reply to an answer) the result is the whole pause: an open
 * request it carries on unchanged stays, one it leaves out or changes is withdrawn, a changed one is
 * asked again on this run's message. Without it, the asked ones are added to what is open.
 */
export async function applyPause(
  rt: Runtime,
  where: { sessionId: string; runId: string; messageId: string },
  hitl: ResolvedHitl,
  input: { asked: PendingAction[]; open: ActionRecord[]; replaces: boolean; now: number },
): Promise<PauseChange> {
  const { asked, open, replaces, now } = input;
  const kept = open.filter((o) => asked.some((a) => a.id === o.actionId && isDeepStrictEqual(a, o.action)));
  const fresh = asked.filter((a) => !kept.some((k) => k.actionId === a.id));
  const withdrawnNow = replaces
    ? open.filter((o) => !kept.includes(o))
    : open.filter((o) => fresh.some((a) => a.id === o.actionId));
  const withdrawn: ActionRecord[] = [];
  for (const action of withdrawnNow) {
    const decided = await decideAction(
      rt,
      action.sessionId,
      action.actionId,
      { status: 'cancelled', actor: 'system', channel: 'system', decidedBy: where.runId },
      { now, mustBeLive: false, from: action.status },
    );
    if (decided.decided) withdrawn.push(decided.action);
  }
  let hostCallOpen = kept.some((k) => k.kind === 'host_tool' && k.status === 'pending');
  const records = fresh.map((a, position) => {
    const isHost = a.type === 'host_tool';
    const status = isHost && hostCallOpen ? 'queued' : 'pending';
    if (isHost) hostCallOpen = true;
    return { ...recordOf(a, where, hitl, now, status), position };
  });
  for (const record of records) await putAction(rt, record);
  return { asked: records, withdrawn, kept };
}
