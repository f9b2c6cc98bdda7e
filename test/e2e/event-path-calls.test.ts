import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_ID, expectedText, pacedAgent, type TurnShape } from '../../bench/support/agents.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { type Meter, type MeterRow, meter } from '../../sandbox/metering.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { within } from '../support/wait.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * The standard turn of the bench, scaled down (120 chunks 5 ms apart, 2 backend tool calls, an
 * approval, 20 chunks after it, 2 connections), with a 50 ms flush window: about ten chunks per window.
 * It counts the turn's AWS calls (never its timings) and fails when the event path writes, reads the
 * subscribers or posts once per chunk, or reads the subscribers once per stored window: they are read
 * when a run starts and refreshed about once a second. (With a 50 ms window, an event path that merges
 * only text deltas already stays under a quarter of the chunks in writes and posts; what it still does
 * per event is read the subscribers.)
 *
 * The functions' clock stands still, so the refresh never comes due by the machine's speed: the
 * subscribers are read when a run starts and when it ends, and a slow turn reads them no more often
 * than a fast one.
 */
const COALESCE_MS = 50;
const SHAPE: TurnShape = { before: 120, after: 20, intervalMs: 5, toolCalls: 2, approval: true };
const CHUNKS = SHAPE.before + SHAPE.after;

const paced = pacedAgent();
const app = createSwitchboard();
app.registerHostAgent(paced.definition);
let sandbox: Sandbox;
let metered: Meter;

beforeAll(async () => {
  const now = Date.now();
  sandbox = await testSandbox({ app, settings: { stream: { coalesceMs: COALESCE_MS } }, clock: () => now });
  metered = meter(sandbox.runtimes);
});
afterAll(async () => {
  metered?.stop();
  await sandbox?.close();
});

/** The text deltas a host received for a session, each seq once, in the order they arrived. */
function deltas(host: TestSocket, sessionId: string): Frame[] {
  const seen = new Set<number>();
  return host.events(sessionId).filter((f) => {
    if (f.type !== 'agent.message.delta' || seen.has(f.seq ?? -1)) return false;
    seen.add(f.seq ?? -1);
    return true;
  });
}

const textOf = (frames: Frame[]) =>
  frames.map((f) => String((f.data as { text?: unknown }).text ?? '')).join('');

describe('the event path of a streaming turn', () => {
  it('writes, reads the subscribers and posts once per window, not once per chunk', async () => {
    const sessionId = 'calls-standard';
    const sender = await TestSocket.open(sandbox.wsUrl);
    const joiner = await TestSocket.open(sandbox.wsUrl);
    try {
      metered.reset();
      const accepted = await sender.request({
        action: 'assistant_message',
        session_id: sessionId,
        agent_id: 'paced',
        content: JSON.stringify(SHAPE),
      });
      expect(accepted.type).toBe('assistant:accepted');
      const joined = await joiner.request({
        action: 'assistant_join_session',
        session_id: sessionId,
        after_seq: 0,
      });
      expect(joined.type).toBe('assistant:joined');
      paced.release(sessionId);
      await sender.waitFor(turnEnded(accepted.run_id), 'the turn to pause');
      const answer = await within(
        api<{ run_id: string }>(sandbox.url, 'POST', `/api/sessions/${sessionId}/actions/${APPROVAL_ID}`, {
          decision: 'approve',
        }),
        'the approval to be accepted',
      );
      expect(answer.status).toBe(202);
      await sender.waitFor(turnEnded(answer.json.run_id), 'the answer to end on the sender');
      await joiner.waitFor(turnEnded(answer.json.run_id), 'the answer to end on the joined host');
      const calls = metered.snapshot();

      // Every chunk reached both connections, in order.
      for (const host of [sender, joiner]) {
        const received = deltas(host, sessionId);
        expect(textOf(received)).toBe(expectedText(SHAPE));
        const seqs = received.map((f) => f.seq ?? 0);
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      }

      const count = (kind: MeterRow['kind']) => calls.count((r) => r.kind === kind && r.fn === 'worker');
      const summary = {
        eventWrites: count('event-write'),
        subscriberReads: count('subscriber-read'),
        eventPostsPerConnection: count('event-post') / 2,
        runPolls: count('run-poll'),
        runs: 2,
      };
      // Not one per chunk: with ~10 chunks per window these stay far below a quarter of the chunks.
      expect(summary.eventWrites, JSON.stringify(summary)).toBeLessThan(CHUNKS / 4);
      expect(summary.eventPostsPerConnection, JSON.stringify(summary)).toBeLessThan(CHUNKS / 4);
      expect(summary.subscriberReads, JSON.stringify(summary)).toBeLessThan(CHUNKS / 4);
      // The subscribers are read at a run's start and then refreshed, not before every stored window.
      // The clock stands still, so no refresh comes due: what is left are the reads at a run's start
      // and at its final windows, a few per run however the machine paced the windows (a bound on the
      // stored windows instead would move with the machine's speed).
      expect(summary.subscriberReads, JSON.stringify(summary)).toBeLessThanOrEqual(3 * summary.runs);
      // The run is polled, not read per event: a few reads per run beyond its polls.
      expect(summary.runPolls, JSON.stringify(summary)).toBeLessThan(CHUNKS / 4);
    } finally {
      await Promise.all([sender.close(), joiner.close()]);
    }
  });
});
