import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getRun } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import app, { QUICK_MESSAGE, readAgentCalls } from '../support/crash-agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

// The worker runs the same module in its own process, where a timed-out invocation really ends it.
const AGENTS = fileURLToPath(new URL('../support/crash-agents.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'switchboard-timeout-'));
const agentsLog = join(dir, 'agents.jsonl');
let sandbox: Sandbox;

beforeAll(async () => {
  // A 3 s function leaves no room for the 5 s shutdown margin: the turn runs into the timeout. The
  // lease (1.5 s) has run out when the job comes back (2 s), so its first redelivery takes the run over.
  sandbox = await testSandbox({
    app,
    visibilityTimeoutSeconds: 2,
    worker: { timeoutMs: 3_000 },
    settings: { runs: { leaseMs: 1_500, cancelPollMs: 100, cancelGraceMs: 300 } },
    workerProcess: { agents: AGENTS, env: { CRASH_AGENTS_LOG: agentsLog } },
  });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const agentCalls = () => readAgentCalls(agentsLog);

let requests = 0;
async function send(sessionId: string, content: string): Promise<string> {
  requests += 1;
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    id: `${sessionId}-${requests}`,
    session_id: sessionId,
    agent_id: 'slow',
    content,
  });
  expect(res.status, res.text).toBe(202);
  return res.json.run_id as string;
}

describe('a worker process whose invocation times out', () => {
  it('is ended and replaced; the job comes back and closes the turn as lost, without a second invoke', async () => {
    const id = 'timeout-1';
    const firstPid = sandbox.worker!.pid;
    const runId = await send(id, 'take your time');
    await expect
      .poll(
        async () => (await getRun(sandbox.runtime, refOf(id), runId))?.status,
        queued('the lost turn to close'),
      )
      .toBe('incomplete');
    expect(sandbox.worker!.pid).not.toBe(firstPid);
    const run = await getRun(sandbox.runtime, refOf(id), runId);
    expect(run?.error).toMatchObject({ code: 'worker_lost' });
    // One invoke, by the child that timed out; the lease_lost hook from its replacement.
    expect(agentCalls().filter((c) => c.invoke)).toEqual([expect.objectContaining({ pid: firstPid })]);
    // The hook is told after the run is closed.
    await expect
      .poll(() => agentCalls().filter((c) => c.cancel), queued('the lease_lost hook'))
      .toEqual([
        expect.objectContaining({
          pid: sandbox.worker!.pid,
          cancel: expect.objectContaining({ reason: 'lease_lost' }),
        }),
      ]);

    const next = await send(id, QUICK_MESSAGE);
    await expect
      .poll(async () => (await getRun(sandbox.runtime, refOf(id), next))?.status, queued('the next turn'))
      .toBe('completed');
    expect(agentCalls().filter((c) => c.invoke)).toHaveLength(2);
  });
});
