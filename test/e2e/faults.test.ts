import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSessionId } from '../../lib/auth/index.ts';
import { DYNAMODB_ATTEMPTS } from '../../lib/config/index.ts';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import {
  type FaultOptions,
  type FaultReport,
  faultProfile,
  faultReportText,
} from '../../sandbox/aws/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

/**
 * Turns, pauses, answers, cancels and reconnects under AWS's everyday faults: throttling, 5xx and
 * timed-out calls (some applied, their answers lost) on every service the functions call; then
 * again under the heavy profile, whose bursts outlast the SDK's retries. The seed
 * makes a failing run's faults drawable again: SWITCHBOARD_FAULT_SEED=… npx vitest run test/e2e/faults.test.ts
 */
const SEED = Number(process.env.SWITCHBOARD_FAULT_SEED ?? 20261202);
const RATES = { throttle: 0.03, error: 0.02, timeout: 0.02 };
const SESSIONS = 4;

const key = (session: string, what: string) => `${session} ${what}`;

/** One agent whose every call is counted, by session and message or action. */
function chaosAgent() {
  const invoked = new Map<string, number>();
  const resolved = new Map<string, number>();
  const count = (map: Map<string, number>, k: string) => map.set(k, (map.get(k) ?? 0) + 1);
  const definition: HostAgentDefinition = {
    info: { id: 'chaos' },
    async invoke({ message, conversationId }, { emit, signal, files }) {
      count(invoked, key(hostSessionId(conversationId), message));
      // A file the host attached: its bytes come from the bucket, through the faults.
      for (const file of await files.list()) emit({ type: 'text', text: `[${await files.text(file.id)}] ` });
      const [verb, n] = message.split(' ');
      if (verb === 'ask') {
        return {
          content: 'I need your OK.',
          pendingActions: [
            { id: `req_${n}`, type: 'tool_approval', toolName: 'wire', title: 'OK?', args: {} },
          ],
        };
      }
      if (verb === 'slow') {
        emit({ type: 'text', text: 'slow started. ' });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 20_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return {};
      }
      for (let i = 0; i < 5; i += 1) {
        emit({ type: 'text', text: `${message}.${i} ` });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return {};
    },
    async resolveAction({ actionId, conversationId }) {
      count(resolved, key(hostSessionId(conversationId), actionId));
      return { content: `resolved ${actionId}` };
    },
  };
  const app = createSwitchboard();
  app.registerHostAgent(definition);
  return { app, invoked, resolved };
}

/** A host's retry: the same request again while the answer is a 5xx, as the protocol allows. */
type Answer = { status: number; json: Record<string, unknown> };

async function retried(send: () => Promise<Answer>): Promise<Answer> {
  for (let attempt = 0; ; attempt += 1) {
    // A dropped connection counts as a 5xx: the host cannot tell whether the request was applied.
    const answer: Answer = await send().catch(() => ({ status: 599, json: {} }));
    if (answer.status < 500 || attempt === 12) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
  }
}

/**
 * A host's reconnect: under bursts a `$connect` can fail past the SDK's retries (API Gateway answers
 * the upgrade 500), and the host opens the socket again, as the client does.
 */
async function openRetried(): Promise<TestSocket> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await TestSocket.open(sandbox.wsUrl);
    } catch (error) {
      if (attempt === 12 || !/upgrade refused: 5\d\d/.test(String(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

/** The sandbox of the profile under test: each profile's `describe` starts its own. */
let sandbox: Sandbox;
const agent = chaosAgent();

/**
 * The profiles: everyday faults at these rates, and `switchboard dev --faults SEED:heavy`'s, whose
 * bursts last past the SDK's retries (a request answers 5xx, a job goes back to the queue).
 */
const PROFILES: { name: string; faults: FaultOptions }[] = [
  {
    name: 'light',
    faults: { seed: SEED, rates: { dynamodb: RATES, sqs: RATES, s3: RATES, connections: RATES } },
  },
  { name: 'heavy', faults: faultProfile(SEED, 'heavy') },
];

async function startUnder(faults: FaultOptions): Promise<void> {
  sandbox = await testSandbox({
    app: agent.app,
    settings: { runs: { leaseMs: 2_000, cancelPollMs: 100, cancelGraceMs: 500 }, stream: { coalesceMs: 0 } },
    // LOG_LEVEL=WARN shows what the functions did about the faults.
    logLevel: process.env.LOG_LEVEL ?? 'ERROR',
    faults,
  });
}

/** The session's status, read by a host that retries a 5xx. */
async function statusOf(session: string) {
  const { json } = await retried(() => api(sandbox.url, 'GET', `/api/sessions/${session}`));
  return json as { status?: string; last_run?: { status?: string } };
}

async function settled(session: string, want: string[]) {
  await expect
    .poll(async () => (await statusOf(session)).status, {
      timeout: 45_000,
      interval: 100,
      message: `${session} settling`,
    })
    .toMatch(new RegExp(`^(${want.join('|')})$`));
}

const chat = (session: string, id: string, content: string) =>
  retried(() =>
    api(sandbox.url, 'POST', '/api/chat', { id, session_id: session, agent_id: 'chaos', content }),
  );

/** Every event of the session's log, read page by page. */
async function log(session: string): Promise<Frame[]> {
  const events: Frame[] = [];
  for (;;) {
    const { json } = await api(sandbox.url, 'GET', `/api/sessions/${session}/events?after=${events.length}`);
    events.push(...((json.events as Frame[]) ?? []));
    if (!json.has_more) return events;
  }
}

/**
 * Joins the session from `after`, again while the answer is an error (a fault reached the function)
 * or does not come (its PostToConnection failed past its retries, as a host that times out sees it).
 */
async function join(socket: TestSocket, session: string, after: number): Promise<void> {
  let answer: Frame | undefined;
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const before = socket.frames.length;
    socket.send({ action: 'assistant_join_session', session_id: session, after_seq: after });
    answer = await socket
      .waitFor(
        (f) => socket.frames.indexOf(f) >= before && (f.type?.startsWith('assistant:') || 'message' in f),
        'the answer to the join',
        5_000,
      )
      .catch(() => undefined);
    if (answer?.type === 'assistant:joined') return;
  }
  throw new Error(`${session}: the join kept failing: ${JSON.stringify(answer)}`);
}

/** One session's story: a turn, a pause and its answer, a cancelled turn, a reconnect mid-stream. */
async function story(session: string, frames: Frame[]): Promise<void> {
  let socket = await openRetried();
  const keep = () => frames.push(...socket.events(session));
  // A file, stored in the bucket, for the first message.
  const upload = await retried(async () => {
    const res = await fetch(`${sandbox.url}/api/files?name=note.txt`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: `note of ${session}`,
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  });
  expect(upload.status).toBe(201);
  // The first message creates the session; the join then replays its log from the start.
  const opened = await retried(() =>
    api(sandbox.url, 'POST', '/api/chat', {
      id: `${session}-r1`,
      session_id: session,
      agent_id: 'chaos',
      content: 'talk 1',
      attachments: [{ kind: 'document', file_id: upload.json.id }],
    }),
  );
  expect(opened.status).toBe(202);
  await join(socket, session, 0);
  await settled(session, ['idle']);

  expect((await chat(session, `${session}-r2`, 'ask 2')).status).toBe(202);
  await settled(session, ['requires_action', 'idle']);
  if ((await statusOf(session)).status === 'requires_action') {
    const answer = await retried(() =>
      api(sandbox.url, 'POST', `/api/sessions/${session}/actions/req_2`, {
        id: `${session}-a2`,
        decision: 'approve',
      }),
    );
    // Nothing else answers this request: a retry of a lost answer finishes the same work, never a 409.
    expect(answer.status).toBe(202);
    await settled(session, ['idle']);
  }

  expect((await chat(session, `${session}-r3`, 'slow 3')).status).toBe(202);
  await settled(session, ['running']);
  const cancel = await retried(() => api(sandbox.url, 'POST', `/api/sessions/${session}/cancel`));
  expect([202, 409]).toContain(cancel.status);
  await settled(session, ['idle']);

  const talk = await chat(session, `${session}-r4`, 'talk 4');
  expect(talk.status).toBe(202);
  // Drop the connection once talk 4 streams (or has ended: a fault can end it early), as the log
  // says: a live frame may not arrive (a post that failed past its retries), the log has it.
  await expect
    .poll(
      async () =>
        (await log(session).catch(() => [])).some(
          (f) =>
            f.run_id === talk.json.run_id && /^(agent\.message\.delta|session\.status_idle)$/.test(f.type),
        ),
      { timeout: 45_000, interval: 250, message: `${session} talk 4 streaming` },
    )
    .toBe(true);
  keep();
  await socket.kill();
  const last = Math.max(0, ...frames.map((f) => f.seq ?? 0));
  socket = await openRetried();
  await join(socket, session, last);
  await settled(session, ['idle']);
  keep();
  await socket.close();
}

for (const profile of PROFILES)
  describe(`under injected faults (${profile.name})`, () => {
    beforeAll(() => startUnder(profile.faults));
    afterAll(async () => {
      await sandbox?.close();
    });

    it('loses and repeats no event, runs no agent twice for a turn, applies no answer twice, and leaves every session usable', {
      timeout: 300_000,
    }, async () => {
      const sessions = Array.from({ length: SESSIONS }, (_, i) => `chaos-${profile.name}-${SEED}-${i}`);
      const frames = new Map(sessions.map((s) => [s, [] as Frame[]]));
      await Promise.all(sessions.map((s) => story(s, frames.get(s) as Frame[])));

      const faults = sandbox.faults;
      if (!faults) throw new Error('the sandbox was started without faults');
      faults.enabled = false;
      console.log(faultReportText(faults.report()));
      expect(faults.injected.length).toBeGreaterThan(20);
      // What the sandbox says it injected, as `GET /sandbox/faults` serves it.
      const { json: served } = await api<FaultReport>(sandbox.url, 'GET', '/sandbox/faults');
      expect(served).toMatchObject({ seed: SEED, enabled: false, injected: faults.injected.length });
      if (profile.name === 'heavy') {
        expect(served.profile).toBe('heavy');
        // Bursts longer than the API functions' DynamoDB attempts: some calls failed past the SDK's retries.
        expect(served.bursts.started).toBeGreaterThan(0);
        expect(served.bursts.longest).toBeGreaterThan(DYNAMODB_ATTEMPTS.http);
      }

      let completedTalks = 0;
      for (const session of sessions) {
        const events = await log(session);
        // The log: seq 1…n, each once.
        expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
        // What the sockets received is what the log holds, seq for seq.
        for (const frame of frames.get(session) ?? []) {
          expect(frame, `${session} seq ${frame.seq}`).toEqual(events[(frame.seq as number) - 1]);
        }
        // Each run ends once; a completed talk turn streamed each of its pieces once.
        const runs = new Map<string, Frame[]>();
        for (const e of events) runs.set(String(e.run_id), [...(runs.get(String(e.run_id)) ?? []), e]);
        for (const [run, list] of runs) {
          const ends = list.filter((e) => /^session\.status_(idle|requires_action)$/.test(e.type));
          expect(
            ends.length,
            `${session} ${run} ends: ${list.map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data).slice(0, 80)}`).join(' | ')}`,
          ).toBe(1);
          const text = list
            .filter((e) => e.type === 'agent.message.delta')
            .map((e) => (e.data as { text: string }).text)
            .join('');
          const asked = list.find((e) => e.type === 'user.message')?.data as { content?: string } | undefined;
          const status = (ends[0]?.data as { status?: string } | undefined)?.status;
          if (asked?.content?.startsWith('talk') && status !== 'completed')
            console.log(`${session} ${asked.content} ended ${status}: ${JSON.stringify(ends[0]?.data)}`);
          if (asked?.content?.startsWith('talk') && status === 'completed') {
            completedTalks += 1;
            // The note attached to the session's first message, then each piece once, in order.
            const pieces = [0, 1, 2, 3, 4].map((i) => `${asked.content}.${i} `).join('');
            expect(text).toBe(`[note of ${session}] ${pieces}`);
          }
        }
        for (const message of ['talk 1', 'ask 2', 'slow 3', 'talk 4']) {
          expect(agent.invoked.get(key(session, message)) ?? 0, `${session} ${message}`).toBeLessThanOrEqual(
            1,
          );
        }
        expect(agent.resolved.get(key(session, 'req_2')) ?? 0, `${session} req_2`).toBeLessThanOrEqual(1);
        // Usable afterwards: a new message is answered.
        expect((await chat(session, `${session}-r5`, 'talk 5')).status).toBe(202);
        await settled(session, ['idle']);
        expect((await statusOf(session)).last_run?.status).toBe('completed');
        expect(agent.invoked.get(key(session, 'talk 5'))).toBe(1);
      }
      // The faults slowed turns down, they did not stop them: most turns under them completed.
      expect(completedTalks).toBeGreaterThanOrEqual(SESSIONS);
    });
  });
