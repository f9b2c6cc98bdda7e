import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSessionId } from '../../lib/auth/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type Gate, gate } from '../support/agents.ts';
import { testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket, turnEnded } from '../support/ws-client.ts';

/**
 * The first event of a run, and one after a quiet window, is stored and sent at once; what follows
 * it within a window is gathered. Text gathered in one window becomes one delta event, so the deltas
 * a host receives show where the windows fell, whatever the machine's speed: the agent emits its
 * pieces synchronously, one after another, and the functions' clock moves only when the test steps it.
 */
const COALESCE_MS = 1_000;

let now = Date.UTC(2026, 11, 3);
/** Per session: the agent waits here after its first piece, when the test set a gate. */
const pauses = new Map<string, { reached: Gate; resume: Gate }>();

const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'pieces' },
  async invoke({ conversationId }, { emit }) {
    emit({ type: 'text', text: 'one ' });
    const pause = pauses.get(hostSessionId(conversationId));
    if (pause) {
      pause.reached.open();
      await pause.resume.opened;
    }
    emit({ type: 'text', text: 'two ' });
    emit({ type: 'text', text: 'three ' });
    return {};
  },
});

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await testSandbox({ app, settings: { stream: { coalesceMs: COALESCE_MS } }, clock: () => now });
});
afterAll(async () => {
  await sandbox?.close();
});

/** The texts of the deltas a host received for a session, in seq order. */
const deltaTexts = (host: TestSocket, sessionId: string) =>
  host
    .events(sessionId)
    .filter((f: Frame) => f.type === 'agent.message.delta')
    .sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
    .map((f) => (f.data as { text: string }).text);

async function turn(sessionId: string, during?: () => void | Promise<void>): Promise<string[]> {
  const host = await TestSocket.open(sandbox.wsUrl);
  try {
    const pause = during ? { reached: gate(), resume: gate() } : undefined;
    if (pause) pauses.set(sessionId, pause);
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: sessionId,
      agent_id: 'pieces',
      content: 'go',
    });
    expect(accepted.type).toBe('assistant:accepted');
    if (pause && during) {
      await pause.reached.opened;
      await during();
      pause.resume.open();
    }
    await host.waitFor(turnEnded(accepted.run_id), 'the turn to end');
    return deltaTexts(host, sessionId);
  } finally {
    await host.close();
  }
}

describe('the first event of a run', () => {
  it('is sent on its own, and what follows within the window is gathered into one delta', async () => {
    expect(await turn('first-alone')).toEqual(['one ', 'two three ']);
  });

  it('is sent at once after a quiet window, and only that one', async () => {
    const texts = await turn('after-quiet', () => {
      now += COALESCE_MS;
    });
    expect(texts).toEqual(['one ', 'two ', 'three ']);
  });
});
