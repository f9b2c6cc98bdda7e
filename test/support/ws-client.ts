/**
 * The WebSocket host of the tests is the bench's (bench/support/ws-client.ts): the bench measures
 * with the same host the tests assert with, and depends on nothing of test/.
 */
import { expect } from 'vitest';
import { type Frame, type TestSocket, turnEnded } from '../../bench/support/ws-client.ts';

export { type Frame, TestSocket, turnEnded, unpack } from '../../bench/support/ws-client.ts';

/**
 * Sends a message (or, with `tool_call_id`, a continuation) over `socket` and waits for the end of its
 * turn: its run id, the event that ended it, and the run's events.
 */
export async function sendTurn(
  socket: TestSocket,
  sessionId: string,
  content: string,
  extra: Record<string, unknown> = {},
): Promise<{ runId: string; end: Frame; events: Frame[] }> {
  const accepted = await socket.request({
    action: 'assistant_message',
    session_id: sessionId,
    content,
    ...extra,
  });
  expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
  const runId = accepted.run_id as string;
  const end = await socket.waitFor(turnEnded(runId, sessionId), 'the end of the turn');
  return { runId, end, events: socket.events(sessionId).filter((f) => f.run_id === runId) };
}
