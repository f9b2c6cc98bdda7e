import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRun } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import app, { QUICK_MESSAGE, readAgentCalls, SLOW_FIRST_CHUNK } from '../support/crash-agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

// The worker runs the same module in its own process; this process serves it over HTTP and WebSocket.
const AGENTS = fileURLToPath(new URL('../support/crash-agents.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'switchboard-crash-'));
const agentsLog = join(dir, 'agents.jsonl');
let sandbox: Sandbox;
let host: TestSocket;

beforeAll(async () => {
  // The lease (1.5 s) runs out before the job comes back (2 s), so the first redelivery takes the run over.
  sandbox = await testSandbox({
    app,
    visibilityTimeoutSeconds: 2,
    settings: { runs: { leaseMs: 1_500, cancelPollMs: 100, cancelGraceMs: 300 } },
    workerProcess: { agents: AGENTS, env: { CRASH_AGENTS_LOG: agentsLog } },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});
afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const agentCalls = () => readAgentCalls(agentsLog);

async function send(sessionId: string, agentId: string, content: string): Promise<string> {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: sessionId,
    agent_id: agentId,
    content,
  });
  expect(accepted, JSON.stringify(accepted)).toMatchObject({ type: 'assistant:accepted' });
  return accepted.run_id as string;
}

const ofRun = (runId: string, type: string) => (f: Frame) => f.run_id === runId && f.type === type;

describe('a worker that dies', () => {
  it('the worker killed mid-turn: the redelivered job closes the turn without a second invoke, and the session accepts a new message', async () => {
    const id = 'crash-1';
    const runId = await send(id, 'slow', 'take your time');
    const first = await host.waitFor(ofRun(runId, 'agent.message.delta'), 'the first text delta');
    expect((first.data as { text: string }).text).toBe(SLOW_FIRST_CHUNK);
    const killedPid = sandbox.worker!.pid;

    await sandbox.worker!.kill('SIGKILL');
    await sandbox.worker!.restart();
    expect(sandbox.worker!.pid).not.toBe(killedPid);

    const error = await host.waitFor(ofRun(runId, 'session.error'), 'the worker_lost error');
    expect(error.data).toMatchObject({ code: 'worker_lost' });
    const end = await host.waitFor(ofRun(runId, 'session.status_idle'), 'the end of the lost turn');
    expect(end.data).toMatchObject({ status: 'incomplete', stop_reason: 'error' });

    // One invoke: one status_running and one first chunk in the log, and one call recorded, by the killed child.
    const log = (await api(sandbox.url, 'GET', `/api/sessions/${id}/events`)).json.events as Frame[];
    const run = log.filter((e) => e.run_id === runId);
    expect(run.filter((e) => e.type === 'session.status_running')).toHaveLength(1);
    expect(
      run.filter(
        (e) =>
          e.type === 'agent.message.delta' && (e.data as { text: string }).text.startsWith(SLOW_FIRST_CHUNK),
      ),
    ).toHaveLength(1);
    expect(agentCalls().filter((c) => c.invoke === 'slow')).toEqual([
      expect.objectContaining({ pid: killedPid }),
    ]);
    // The backend hears of the loss from the worker that took the run over, once the run is closed
    // (the hook is called after the close is written, so it may land after the idle event).
    await expect
      .poll(() => agentCalls().filter((c) => c.cancel), queued('the cancel hook told of the loss'))
      .toEqual([
        { pid: sandbox.worker!.pid, cancel: { conversationId: refOf(id), runId, reason: 'lease_lost' } },
      ]);

    await expect
      .poll(
        async () => (await getRun(sandbox.runtime, refOf(id), runId))?.status,
        queued('the lost run closed as incomplete'),
      )
      .toBe('incomplete');
    expect((await api(sandbox.url, 'GET', `/api/sessions/${id}`)).json).toMatchObject({
      last_run: { status: 'incomplete' },
    });

    const next = await send(id, 'slow', QUICK_MESSAGE);
    const done = await host.waitFor(ofRun(next, 'session.status_idle'), 'the next turn to end');
    expect(done.data).toMatchObject({ status: 'completed' });
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      content: string;
    }[];
    expect(messages.at(-1)).toMatchObject({ content: `right away: ${QUICK_MESSAGE}` });
    expect(agentCalls().filter((c) => c.invoke)).toHaveLength(2);
  });
});
