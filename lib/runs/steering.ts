import { DeleteItem } from '../aws/index.ts';
import type { Runtime } from '../config/index.ts';
import type { HistoryMessage } from '../contract/index.ts';
import { getMessage, keys, listRuns, putMessage, type RunRecord, steerRun } from '../store/index.ts';
import { spanEvent } from '../telemetry/index.ts';
import { historyMessage } from './agent-input.ts';

/**
 * `io.takeSteering()`: the messages sent with `steer: true` while this turn runs, queued right
 * behind it, handed to it instead of becoming turns of their own. Each is taken by one conditional
 * write; it moves to this turn's place in the conversation (after this turn's user message, before
 * its answer). One the agent does not take runs as the next turn, as any message does.
 */
/** Whether a message id is a steered message's (taken into a running turn: `msg_…_000_s…`). */
export const isSteeredId = (id: string): boolean => /_s[0-9A-Za-z]+$/.test(id);

export async function takeSteering(
  rt: Runtime,
  run: RunRecord,
  announce: (message: HistoryMessage) => void,
): Promise<HistoryMessage[]> {
  const behind = (await listRuns(rt, run.sessionId)).filter(
    (r) => r.runId > run.runId && r.status === 'queued',
  );
  const taken: HistoryMessage[] = [];
  // Only the steering messages right behind this turn: a plain message queued first keeps its place.
  for (const next of behind) {
    if (!next.steer) break;
    if (!(await steerRun(rt, next, run.runId, rt.clock()))) break;
    const original = await getMessage(rt, run.sessionId, next.userMessageId);
    if (!original) continue;
    const moved = {
      ...original,
      messageId: `${run.userMessageId}_s${next.runId.slice(4)}`,
      runId: run.runId,
    };
    await putMessage(rt, moved);
    await rt.db.send(
      new DeleteItem({ TableName: rt.table, Key: keys.message(run.sessionId, original.messageId) }),
    );
    const message = await historyMessage(rt, moved);
    announce(message);
    taken.push(message);
    spanEvent('switchboard.steering.taken', { 'switchboard.steered.run_id': next.runId });
  }
  return taken;
}
