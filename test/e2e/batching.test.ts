import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSessionId } from '../../lib/auth/index.ts';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import { getRun } from '../../lib/store/index.ts';
import type { Sandbox, SandboxOptions } from '../../sandbox/sandbox.ts';
import { type Gate, gate } from '../support/agents.ts';
import { api, refOf, testSandbox } from '../support/sandbox.ts';
import { queued, within } from '../support/wait.ts';

/**
 * The functions' clock where a test steps it: `Date.now()` plus what the turns said they worked
 * (`step:N`), so a long turn takes its time without the test waiting for it.
 */
let steppedMs = 0;
const steppedClock = () => Date.now() + steppedMs;

/**
 * An agent whose turns the tests shape by their text: `hold` waits for the test, `sleep:N` works N ms
 * (or until it is stopped), `step:N` works N ms of the stepped clock at once; every call is counted,
 * so a turn run twice would show.
 */
function batchAgent() {
  const invoked: { sessionId: string; message: string }[] = [];
  const holds = new Map<string, { reached: Gate; release: Gate }>();
  const holdOf = (sessionId: string) => {
    const entry = holds.get(sessionId) ?? { reached: gate(), release: gate() };
    holds.set(sessionId, entry);
    return entry;
  };
  const definition: HostAgentDefinition = {
    info: { id: 'batch' },
    async invoke({ message, conversationId }, { emit, signal }) {
      invoked.push({ sessionId: hostSessionId(conversationId), message });
      if (message === 'hold') {
        holdOf(hostSessionId(conversationId)).reached.open();
        await holdOf(hostSessionId(conversationId)).release.opened;
      }
      steppedMs += Number(/^step:(\d+)$/.exec(message)?.[1] ?? 0);
      const ms = Number(/^sleep:(\d+)$/.exec(message)?.[1] ?? 0);
      if (ms > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          const stop = () => {
            clearTimeout(timer);
            resolve();
          };
          signal.addEventListener('abort', stop, { once: true });
        });
      }
      emit({ type: 'text', text: `done: ${message}` });
      return {};
    },
  };
  const calls = (sessionId: string) => invoked.filter((c) => c.sessionId === sessionId).map((c) => c.message);
  return { definition, holdOf, calls };
}

const agent = batchAgent();
const app = createSwitchboard();
app.registerHostAgent(agent.definition);

async function open(options: Omit<SandboxOptions, 'app'>): Promise<Sandbox> {
  return testSandbox({ app, ...options });
}

let n = 0;
async function send(sandbox: Sandbox, sessionId: string, content: string): Promise<string> {
  n += 1;
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    id: `req-${n}`,
    session_id: sessionId,
    agent_id: 'batch',
    content,
  });
  expect(res.status, res.text).toBe(202);
  return res.json.run_id as string;
}

const run = (sandbox: Sandbox, sessionId: string, runId: string) =>
  getRun(sandbox.runtime, refOf(sessionId), runId);

/** Sends `hold`, waits for the agent to hold it, queues `contents` behind it, then lets it go. */
async function queueBehindHold(sandbox: Sandbox, sessionId: string, contents: string[]) {
  const hold = await send(sandbox, sessionId, 'hold');
  await within(agent.holdOf(sessionId).reached.opened, 'the held turn');
  const runIds: string[] = [];
  for (const content of contents) runIds.push(await send(sandbox, sessionId, content));
  agent.holdOf(sessionId).release.open();
  return { hold, runIds };
}

async function statuses(sandbox: Sandbox, sessionId: string, runIds: string[]) {
  return Promise.all(runIds.map(async (id) => (await run(sandbox, sessionId, id))?.status));
}

describe('several turns of one session in one batch', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await open({});
  });
  afterAll(async () => sandbox?.close());

  it('run one after another in one invocation, in order, each agent call once', async () => {
    const id = 'batch-order';
    const { hold, runIds } = await queueBehindHold(sandbox, id, ['one', 'two', 'three']);
    await expect
      .poll(() => statuses(sandbox, id, runIds), queued('the three turns'))
      .toEqual(['completed', 'completed', 'completed']);
    // The three were queued behind the held turn, so they came in one batch: one invocation holds all their leases.
    const owners = await Promise.all(runIds.map(async (r) => (await run(sandbox, id, r))?.leaseOwner));
    expect(new Set(owners).size).toBe(1);
    expect(owners[0]).not.toBe((await run(sandbox, id, hold))?.leaseOwner);
    expect(agent.calls(id)).toEqual(['hold', 'one', 'two', 'three']);
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${id}/messages`)).json.messages as {
      role: string;
      content: string;
    }[];
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([
      'done: hold',
      'done: one',
      'done: two',
      'done: three',
    ]);
  });
});

describe('a worker with too little time left', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    // A later turn needs a lease (10 s) plus the shutdown margin (5 s), 15 s; the functions' clock is
    // stepped, so the long turn takes 8 s of it at once:
    // - the 8 s turn ends 7 s before the 20 s invocation would stop it (at 20 - 5 = 15 s), and 2 s
    //   before its lease would run out;
    // - after it the invocation has at most 12 s left, 3 s short of 15 s: the later turns are handed back;
    // - a fresh invocation has 20 s, 5 s more than the 15 s the second of them needs after the first.
    // The queue's visibility (120 s) is far longer than the test waits.
    sandbox = await open({
      clock: steppedClock,
      visibilityTimeoutSeconds: 120,
      worker: { timeoutMs: 20_000 },
      settings: { runs: { leaseMs: 10_000, cancelGraceMs: 0, cancelPollMs: 100 } },
    });
  });
  afterAll(async () => sandbox?.close());

  it('hands the later records back; they come back at once and run on the next invocation, each once', async () => {
    const id = 'batch-handback';
    const { runIds } = await queueBehindHold(sandbox, id, ['step:8000', 'after-1', 'after-2']);
    await expect
      .poll(() => statuses(sandbox, id, runIds), queued('the three turns'))
      .toEqual(['completed', 'completed', 'completed']);
    const [long, first, second] = await Promise.all(runIds.map((r) => run(sandbox, id, r)));
    // Handed back after the long turn, then run together by a fresh invocation with time for both.
    expect(first?.leaseOwner).not.toBe(long?.leaseOwner);
    expect(second?.leaseOwner).toBe(first?.leaseOwner);
    expect(agent.calls(id)).toEqual(['hold', 'step:8000', 'after-1', 'after-2']);
  });
});

describe('an invocation that runs past its function timeout', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    // A 3 s function leaves no room for the 5 s shutdown margin, so nothing stops the turn in time.
    sandbox = await open({
      visibilityTimeoutSeconds: 2,
      worker: { timeoutMs: 3_000 },
      settings: { runs: { cancelGraceMs: 0, cancelPollMs: 100 } },
    });
  });
  afterAll(async () => sandbox?.close());

  const inQueue = async () => {
    const { Attributes } = await (await sandbox.runtime.sqs()).send(
      new GetQueueAttributesCommand({
        QueueUrl: sandbox.runtime.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
    );
  };

  it('is abandoned: its turn is stopped, its batch comes back and is not run again', async () => {
    const id = 'batch-timeout';
    const runId = await send(sandbox, id, 'sleep:20000');
    await expect
      .poll(async () => (await run(sandbox, id, runId))?.status, queued('the stopped turn'))
      .toBe('cancelled');
    const events = (await api(sandbox.url, 'GET', `/api/sessions/${id}/events`)).json.events as {
      type: string;
      data: Record<string, unknown>;
    }[];
    expect(events.filter((e) => e.type === 'session.status_idle').map((e) => e.data)).toEqual([
      expect.objectContaining({ status: 'cancelled', detail: { reason: 'shutdown' } }),
    ]);
    // The job came back after its visibility timeout, found its run ended and was deleted.
    await expect.poll(inQueue, queued('the job to be gone')).toBe(0);
    const next = await send(sandbox, id, 'after');
    await expect
      .poll(async () => (await run(sandbox, id, next))?.status, queued('the next turn'))
      .toBe('completed');
    expect(agent.calls(id)).toEqual(['sleep:20000', 'after']);
  });
});
