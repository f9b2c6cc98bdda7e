import type { Runtime } from '../config/index.ts';
import { type ActionRecord, isOpen, listActions, listRuns, type RunRecord } from '../store/index.ts';

/**
 * The other requests of the pause as the agent must see them when one answer is handed to
 * `resolveAction`: those still open, and those answered whose answer has not reached the agent yet
 * (its run is queued behind this one). Two answers that arrive together are so handed over one at a
 * time: the first sees the second request still open and can say "still waiting on the rest", and
 * only the last answer's reply is the message of the turn. A reply that does not carry such a
 * request on withdraws it, and its answer is then never handed over (its run closes without a word).
 * `before` are the requests of the same pause already decided and handed over (`answeredBefore`).
 */
export async function stillOpenFor(
  rt: Runtime,
  run: Pick<RunRecord, 'sessionId' | 'runId'>,
  answered: Pick<ActionRecord, 'actionId' | 'runId' | 'messageId'>,
): Promise<{ others: ActionRecord[]; before: ActionRecord[] }> {
  const actions = (await listActions(rt, run.sessionId)).filter((a) => a.actionId !== answered.actionId);
  const answeredAhead = actions.filter(
    (a) => a.status === 'resolved' && a.decidedBy !== undefined && a.decidedBy !== run.runId,
  );
  const waiting =
    answeredAhead.length === 0
      ? new Set<string>()
      : new Set(
          (await listRuns(rt, run.sessionId))
            .filter((r) => r.status === 'queued' && r.kind === 'resolve' && r.runId !== run.runId)
            .map((r) => r.runId),
        );
  const others = actions.filter(
    (a) => isOpen(a) || (a.status === 'resolved' && a.decidedBy !== undefined && waiting.has(a.decidedBy)),
  );
  // The same pause: asked by the same run on the same message; decided, and handed over, already.
  const before = actions.filter(
    (a) => a.runId === answered.runId && a.messageId === answered.messageId && !others.includes(a),
  );
  return { others, before };
}
