import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FunctionName } from '../../lib/config/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * How often a turn and a new message read the session's requests (the `ACT#` items): once each. A
 * turn whose result replaces the pause knows what is open from the read it applied it to; a new
 * message finds what is open and what a retried run already decided in one read. Counting calls,
 * never timing them.
 */
let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'asker' },
    async invoke({ message }) {
      return message === 'ask'
        ? {
            content: 'May I?',
            pendingActions: [
              { id: 'req_ok', type: 'tool_approval', toolName: 'wire', title: 'OK?', args: {} },
            ],
          }
        : { content: 'fine' };
    },
  });
  sandbox = await testSandbox({ app });
});
afterAll(async () => {
  await sandbox?.close();
});

/** Counts the Queries of the session's requests one function sends while `work` runs. */
async function requestReads(fn: FunctionName, work: () => Promise<void>): Promise<number> {
  const send = vi.spyOn(sandbox.runtimes[fn].db, 'send');
  try {
    await work();
    return send.mock.calls.filter(([command]) => {
      const input = command.input as { ExpressionAttributeValues?: Record<string, unknown> };
      return command.operation === 'Query' && input.ExpressionAttributeValues?.[':act'] === 'ACT#';
    }).length;
  } finally {
    send.mockRestore();
  }
}

const statusOf = async (session: string) =>
  ((await api<{ status: string }>(sandbox.url, 'GET', `/api/sessions/${session}`)).json as { status: string })
    .status;

describe('reads of a session’s requests', () => {
  it('a turn that asks reads them once; a new message while one is open reads them once', async () => {
    const session = 'request-reads-1';
    const asked = await requestReads('worker', async () => {
      const sent = await api(sandbox.url, 'POST', '/api/chat', {
        session_id: session,
        agent_id: 'asker',
        content: 'ask',
      });
      expect(sent.status).toBe(202);
      await expect.poll(() => statusOf(session), queued('the turn to pause')).toBe('requires_action');
    });
    expect(asked).toBe(1);
    const taken = await requestReads('http', async () => {
      const sent = await api(sandbox.url, 'POST', '/api/chat', {
        session_id: session,
        content: 'something else',
      });
      expect(sent.status).toBe(202);
    });
    expect(taken).toBe(1);
  });
});
