import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { queued, within } from '../support/wait.ts';

/** Everything the sandbox's readable log printed, entry by entry. */
const printed: string[] = [];

/** Waits until an entry matching `pattern` has been printed after the first `since` entries; that entry. */
async function entry(pattern: RegExp, what: string, since = 0): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(() => {
      found = printed.slice(since).find((text) => pattern.test(text));
      return found !== undefined;
    }, queued(what))
    .toBe(true);
  return found as string;
}

/** Agents whose hooks fail, whose requests lapse and whose turns cost more than their budget. */
const agents: HostAgentDefinition[] = [
  {
    info: { id: 'lapsing' },
    hitl: { onTimeout: 'cancel' },
    async invoke() {
      const expiresAt = new Date(Date.now() - 1_000).toISOString();
      return {
        content: 'OK?',
        pendingActions: [{ id: 'req_old', type: 'tool_approval', toolName: 'x', expiresAt }],
      };
    },
    async resolveAction() {
      return { content: 'done' };
    },
    async cancel() {
      throw new RangeError('the backend forgot the run');
    },
  },
  {
    info: { id: 'spender' },
    budget: { sessionUsd: 0.01 },
    async invoke() {
      return { content: 'That was expensive.', usage: { costUsd: 0.5 } };
    },
  },
  {
    info: { id: 'rated' },
    async invoke() {
      return { content: 'Rate me.' };
    },
    async feedback() {
      throw new Error('the analytics table is gone');
    },
  },
];

function appWith(reply: string, list: HostAgentDefinition[] = []) {
  const app = createSwitchboard();
  for (const agent of list) app.registerHostAgent(agent);
  app.registerHostAgent({
    info: { id: 'echo' },
    invoke: async ({ message }) => ({ content: `${reply}: ${message}` }),
  });
  return app;
}

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({
    app: appWith('first', agents),
    logLevel: 'WARN',
    readableLogs: { write: (text) => printed.push(text), color: false },
  });
});

afterAll(async () => {
  await sandbox?.close();
});

/** Sends `content` to `agent` in session `id` and waits for the answers to number `count`; the messages. */
async function turn(id: string, agent: string, content: string, count: number) {
  const sent = await api(sandbox.url, 'POST', '/api/chat', { session_id: id, agent_id: agent, content });
  expect(sent.status, sent.text).toBe(202);
  let messages: { id: string; role: string; content: string }[] = [];
  await expect
    .poll(
      async () => {
        const res = await api<{ messages: typeof messages }>(
          sandbox.url,
          'GET',
          `/api/sessions/${id}/messages`,
        );
        messages = (res.json.messages ?? []).filter((m) => m.role === 'assistant');
        return messages.length;
      },
      queued(`answer ${count} in ${id}`),
    )
    .toBe(count);
  return messages;
}

describe("the sandbox's readable log", () => {
  it('prints a lapsed request and a cancel hook that failed, naming the agent, the session and the error', async () => {
    const since = printed.length;
    await turn('lapse', 'lapsing', 'hi', 1);
    await sandbox.sweep();
    const lapsed = await entry(/A pending request lapsed: withdrawn/, 'the lapse', since);
    expect(lapsed).toMatch(
      /^\d\d:\d\d:\d\d WARN {2}agent lapsing · session lapse · run run_\w+: A pending request lapsed: withdrawn \(actionId=req_old\)\n$/,
    );
    const hook = await entry(/A cancel hook failed/, 'the cancel hook', since);
    expect(hook).toMatch(
      /WARN {2}agent lapsing · session lapse · run run_\w+: A cancel hook failed \(reason=expired\)\n {2}RangeError: the backend forgot the run\n {4}at .*cancel .*readable-logs\.test\.ts:\d+:\d+\)\n/,
    );
  });

  it('prints a turn that reached its budget', async () => {
    const since = printed.length;
    await turn('budget', 'spender', 'hi', 1);
    const text = await entry(/reached the session budget/, 'the budget warning', since);
    expect(text).toMatch(
      /WARN {2}agent spender · session budget · run run_\w+: The turn reached the session budget: the next message is refused \(402\)\n$/,
    );
  });

  it('prints a feedback hook that failed with its message and the frame that threw', async () => {
    const [answer] = await turn('rated', 'rated', 'hi', 1);
    const since = printed.length;
    const res = await api(sandbox.url, 'POST', `/api/sessions/rated/messages/${answer?.id}/feedback`, {
      rating: 'up',
    });
    expect(res.status).toBe(500);
    const text = await entry(/The feedback hook failed/, 'the feedback hook', since);
    expect(text).toMatch(
      new RegExp(
        `ERROR agent rated · session rated: The feedback hook failed \\(messageId=${answer?.id}\\)\\n {2}the analytics table is gone\\n {4}at .*feedback .*readable-logs\\.test\\.ts:\\d+:\\d+\\)\\n$`,
      ),
    );
  });
});

describe('sandbox.reload', () => {
  it('serves the new agents from the next turn on, keeping the session and its messages', async () => {
    const first = await turn('reloaded', 'echo', 'one', 1);
    sandbox.reload(appWith('second'));
    const both = await within(turn('reloaded', 'echo', 'two', 2), 'the turn after the reload');
    expect(both.map((m) => m.content)).toEqual([first[0]?.content, 'second: two']);
    expect(first[0]?.content).toBe('first: one');
  });
});

describe("the sandbox's readable log, for a turn that outlasts the worker", () => {
  const lines: string[] = [];
  let short: Sandbox;

  beforeAll(async () => {
    const app = createSwitchboard();
    app.registerHostAgent({
      info: { id: 'slow' },
      // Works until it is told to stop.
      invoke: (_input, { signal }) =>
        new Promise((resolve) => signal.addEventListener('abort', () => resolve({ content: 'stopped' }))),
    });
    // The turn is stopped the shutdown margin (the grace, 300 ms, plus 5 s to close) before the
    // function's timeout: about a second after it starts.
    short = await testSandbox({
      app,
      logLevel: 'WARN',
      worker: { timeoutMs: 6_300 },
      settings: { runs: { cancelGraceMs: 300 } },
      readableLogs: { write: (text) => lines.push(text), color: false },
    });
  });

  afterAll(async () => {
    await short?.close();
  });

  it('prints that the turn ran out of time, naming the agent, the session and the run', async () => {
    const sent = await api(short.url, 'POST', '/api/chat', {
      session_id: 'slow',
      agent_id: 'slow',
      content: 'hi',
    });
    expect(sent.status, sent.text).toBe(202);
    await expect
      .poll(() => lines.some((l) => l.includes('ran out of the worker’s time')), queued('the warning'))
      .toBe(true);
    expect(lines.find((l) => l.includes('ran out of the worker’s time'))).toMatch(
      new RegExp(
        `^\\d\\d:\\d\\d:\\d\\d WARN {2}agent slow · session slow · run ${sent.json.run_id}: The turn ran out of the worker’s time: it is stopped \\(reason shutdown\\)\\n$`,
      ),
    );
  });
});
