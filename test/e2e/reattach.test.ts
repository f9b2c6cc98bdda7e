import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { hostSessionId } from '../../lib/auth/index.ts';
import type { HostAgentDefinition } from '../../lib/contract/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type Gate, gate } from '../support/agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { type Frame, TestSocket } from '../support/ws-client.ts';

/** Replay a failure with REATTACH_SEED=<the seed in the test's name>. */
const SEED = Number(process.env.REATTACH_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** A small seeded PRNG (mulberry32): the same seed draws the same plan of reconnects. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  /** An integer in [min, max]. */
  return (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
}

const big: HostAgentDefinition = {
  info: { id: 'big' },
  async invoke(_input, { emit }) {
    emit({ type: 'tool_result', id: 't1', name: 'dump', result: 'x'.repeat(350_000) });
    return { content: 'done' };
  },
};

/** The last text chunk of a paced turn of `count` chunks. */
const lastChunk = (count: number) => `${count} `;

/** Per session: a paced turn waits on its gate, when the test set one, after its last chunk. */
const holds = new Map<string, Gate>();

/**
 * Streams `message` (a number) text chunks, a macrotask apart so that the stream interleaves with
 * the reconnecting hosts; then, when the test holds the session, waits to be let go before it
 * ends the turn. So a test decides when the turn ends: never before the joins it makes.
 */
const paced: HostAgentDefinition = {
  info: { id: 'paced' },
  async invoke({ message, conversationId }, { emit }) {
    const count = Number(message) || 100;
    for (let i = 1; i <= count; i += 1) {
      emit({ type: 'text', text: `${i} ` });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await holds.get(hostSessionId(conversationId))?.opened;
    return {};
  },
};

/** Holds the session's next paced turn after its last chunk, until the gate is opened. */
function hold(sessionId: string): Gate {
  const held = gate();
  holds.set(sessionId, held);
  return held;
}

const app = createSwitchboard();
for (const d of [paced, big]) app.registerHostAgent(d);
let sandbox: Sandbox;
let n = 0;
const sid = (name: string) => {
  n += 1;
  return `re-${name}-${n}-${SEED}`;
};

beforeAll(async () => {
  // Every event its own window, and joins found within 100 ms: the most interleaving of replay and live.
  sandbox = await testSandbox({ app, settings: { stream: { coalesceMs: 0, subscriberRefreshMs: 100 } } });
});
afterAll(async () => {
  await sandbox?.close();
});

/**
 * How long a wait for an event may take before the test calls it a hang. Beside another suite on two
 * cores, one turn of 50 reconnecting hosts took more than 45 s to reach its idle.
 */
const WAIT_MS = 100_000;

const idleOf = (sessionId: string, runId: string) => (f: Frame) =>
  f.session_id === sessionId && f.type === 'session.status_idle' && f.run_id === runId;

const range = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

/**
 * The documented host rule: apply events in seq order. One at or below the last applied is a
 * repeat and is dropped; one further ahead is held until the events before it have arrived (a
 * replay and the live stream can interleave while a join is in progress).
 */
function hostRule(frames: Frame[], afterSeq: number) {
  const kept: Frame[] = [];
  const held = new Map<number, Frame>();
  let last = afterSeq;
  let duplicates = 0;
  for (const f of frames) {
    const seq = f.seq as number;
    if (seq <= last || held.has(seq)) {
      duplicates += 1;
      continue;
    }
    held.set(seq, f);
    for (let next = held.get(last + 1); next; next = held.get(last + 1)) {
      held.delete(last + 1);
      kept.push(next);
      last += 1;
    }
  }
  return { kept, duplicates, last };
}

/** A socket joined to the session after `afterSeq`, and how far the join's replay went. */
async function joined(
  sessionId: string,
  afterSeq: number,
): Promise<{ socket: TestSocket; replayedThrough: number }> {
  const socket = await TestSocket.open(sandbox.wsUrl);
  const answer = await socket.request({
    action: 'assistant_join_session',
    session_id: sessionId,
    after_seq: afterSeq,
  });
  expect(answer, `join after ${afterSeq}`).toMatchObject({ type: 'assistant:joined', session_id: sessionId });
  expect(typeof answer.replayed_through, `join after ${afterSeq}`).toBe('number');
  return { socket, replayedThrough: answer.replayed_through as number };
}

async function readLog(sessionId: string): Promise<Frame[]> {
  const res = await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/events?limit=1000`);
  expect(res.status).toBe(200);
  expect(res.json.has_more).toBe(false);
  return res.json.events as Frame[];
}

interface Reattach {
  host: number;
  afterSeq: number;
  /** The last seq the join's replay sent: only a seq up to it can arrive twice (replay and live). */
  replayedThrough: number;
  /** Event frames as they arrived on the socket that followed the turn to its end. */
  frames: Frame[];
  /** When the host first had a socket that it dropped without a close: what that one received. */
  lost?: { afterSeq: number; replayedThrough: number; frames: Frame[] };
  /** Whether the turn was still running when the (last) join was answered. */
  midStream: boolean;
}

/** What a reconnecting host does, drawn up front so that a seed replays the same plan. */
interface Plan {
  host: number;
  /** The seq the stream has reached (on the primary) when the host reconnects. */
  atSeq: number;
  /** Where in [0, the last seq seen] its after_seq lies, as a fraction. */
  point: number;
  /** A phone first joins, loses that socket after this many more seqs, and reconnects. */
  killAfter?: number;
}

/**
 * One reconnecting host: waits (on the primary socket) until the stream has reached `atSeq`, then
 * joins with a seq it had seen and follows the turn to its end. A phone first loses a socket it
 * had joined, and reconnects from the last seq that socket gave it. `onJoined` is called once the
 * last join was answered: the turn is held open until every host's was.
 */
async function reattach(
  plan: Plan,
  primary: TestSocket,
  sessionId: string,
  runId: string,
  onJoined: () => void,
): Promise<Reattach> {
  const isIdle = idleOf(sessionId, runId);
  const isLastChunk = (f: Frame) =>
    f.session_id === sessionId &&
    f.type === 'agent.message.delta' &&
    (f.data as { text?: string }).text === lastChunk(CHUNKS);
  const reached = (f: Frame) =>
    f.session_id === sessionId && typeof f.seq === 'number' && f.seq >= plan.atSeq;
  await primary.waitFor(reached, `seq ${plan.atSeq} on the primary`, WAIT_MS);
  // A seq the host had seen; one that already has the turn's end would have nothing left to follow.
  const seen = primary.events(sessionId).filter((f) => !isIdle(f));
  const highest = seen.reduce((max, f) => Math.max(max, f.seq as number), 0);
  let afterSeq = Math.floor(plan.point * (highest + 1));
  let lost: Reattach['lost'];
  if (plan.killAfter !== undefined) {
    const first = await joined(sessionId, afterSeq);
    const target = afterSeq + plan.killAfter;
    // The turn is held after its last chunk until every host has joined: a target past it would never come.
    await first.socket.waitFor(
      (f) => f.session_id === sessionId && ((f.seq ?? 0) >= target || isLastChunk(f) || isIdle(f)),
      `seq ${target} (or the last chunk) before the kill`,
      WAIT_MS,
    );
    await first.socket.kill();
    lost = { afterSeq, replayedThrough: first.replayedThrough, frames: first.socket.events(sessionId) };
    afterSeq = hostRule(lost.frames, afterSeq).last;
  }
  const { socket, replayedThrough } = await joined(sessionId, afterSeq);
  const midStream = !primary.frames.some(isIdle);
  onJoined();
  const end = await primary.waitFor(isIdle, 'the idle on the primary', WAIT_MS);
  // The lost socket may have had the turn's end already: then the new one has nothing to wait for.
  if (afterSeq < (end.seq as number)) {
    await socket.waitFor(isIdle, `the idle of ${runId} (host ${plan.host})`, WAIT_MS);
  }
  await socket.close();
  return {
    host: plan.host,
    afterSeq,
    replayedThrough,
    frames: socket.events(sessionId),
    midStream,
    ...(lost ? { lost } : {}),
  };
}

// Two turns of 50 hosts: each run draws a fresh seed (printed), so the runs add up to far more.
const SESSIONS = 2;
const HOSTS_PER_TURN = 50;
/** 124 events a turn; longer streams take the file past 40 s on two cores. */
const CHUNKS = 120;

describe('reattaching', () => {
  it(`reconnecting with after_seq at a random point of a long stream yields a gap-free, duplicate-free sequence (${SESSIONS * HOSTS_PER_TURN} reconnects, seed ${SEED})`, {
    timeout: 240_000,
  }, async () => {
    const draw = prng(SEED);
    const plans = range(0, SESSIONS - 1).map((turn) =>
      range(1, HOSTS_PER_TURN).map(
        (i): Plan => ({
          host: turn * HOSTS_PER_TURN + i,
          // Seqs 3 … CHUNKS + 2 are the deltas, so every point up to CHUNKS is reached mid-stream.
          atSeq: draw(1, CHUNKS),
          point: draw(0, 1_000_000) / 1_000_001,
          ...(draw(1, 5) === 1 ? { killAfter: draw(1, 20) } : {}),
        }),
      ),
    );
    // One turn at a time: 50 hosts replaying and following one stream are load enough for 2 cores.
    const turns = [];
    for (const turnPlans of plans) {
      turns.push(
        await (async () => {
          const sessionId = sid('stream');
          // The turn ends only once every host's join was answered, so each one joins mid-stream.
          const held = hold(sessionId);
          let waiting = turnPlans.length;
          const onJoined = () => {
            waiting -= 1;
            if (waiting === 0) held.open();
          };
          const primary = await TestSocket.open(sandbox.wsUrl);
          try {
            const accepted = await primary.request({
              action: 'assistant_message',
              session_id: sessionId,
              agent_id: 'paced',
              content: String(CHUNKS),
            });
            expect(accepted.type).toBe('assistant:accepted');
            const runId = accepted.run_id as string;
            const hosts = await Promise.all(
              turnPlans.map((p) => reattach(p, primary, sessionId, runId, onJoined)),
            );
            const end = await primary.waitFor(idleOf(sessionId, runId), 'the idle on the primary', WAIT_MS);
            return {
              sessionId,
              runId,
              finalSeq: end.seq as number,
              primary: primary.events(sessionId),
              hosts,
            };
          } finally {
            held.open();
            await primary.close();
          }
        })(),
      );
    }

    /** Every socket a host followed the log on, with the events it should have ended up with. */
    const followed: {
      where: string;
      afterSeq: number;
      replayedThrough: number;
      frames: Frame[];
      expected: Frame[];
    }[] = [];
    for (const turn of turns) {
      const log = await readLog(turn.sessionId);
      expect(log.map((e) => e.seq)).toEqual(range(1, turn.finalSeq));
      expect(log.filter((e) => e.type === 'agent.message.delta')).toHaveLength(CHUNKS);
      expect(turn.primary, 'the primary socket, joined from the start').toEqual(log);
      for (const h of turn.hosts) {
        const where = `session ${turn.sessionId}, host ${h.host}, after_seq ${h.afterSeq}`;
        followed.push({
          where,
          afterSeq: h.afterSeq,
          replayedThrough: h.replayedThrough,
          frames: h.frames,
          expected: log.slice(h.afterSeq),
        });
        if (h.lost) {
          followed.push({
            where: `${where}, its lost socket (after_seq ${h.lost.afterSeq})`,
            afterSeq: h.lost.afterSeq,
            replayedThrough: h.lost.replayedThrough,
            frames: h.lost.frames,
            expected: log.slice(h.lost.afterSeq, h.afterSeq),
          });
        }
      }
    }
    let raw = 0;
    let dropped = 0;
    let repeated = 0;
    let unsent = 0;
    const gaps: string[] = [];
    for (const f of followed) {
      const rule = hostRule(f.frames, f.afterSeq);
      raw += f.frames.length;
      dropped += rule.duplicates;
      repeated += f.frames.length - new Set(f.frames.map((e) => e.seq)).size;
      const kept = new Set(rule.kept.map((e) => e.seq));
      const missing = f.expected.filter((e) => !kept.has(e.seq)).map((e) => e.seq);
      if (missing.length > 0) {
        const arrived = f.frames.map((e) => e.seq);
        const never = missing.filter((seq) => !arrived.includes(seq)).length;
        unsent += never;
        gaps.push(
          `${f.where}: ${missing.length} events lost (${missing.slice(0, 5).join(', ')} …), ${never} of them never sent; arrival order ${arrived.slice(0, 30).join(',')} …`,
        );
      }
    }
    const phones = followed.length - turns.length * HOSTS_PER_TURN;
    const midStream = turns.flatMap((t) => t.hosts).filter((h) => h.midStream).length;
    console.info(
      `reattach seed ${SEED}: ${turns.length * HOSTS_PER_TURN} reconnects (${midStream} while the turn streamed, ${phones} after a killed socket), ${raw} event frames on ${followed.length} sockets; the host rule dropped ${dropped} (${repeated} of them a seq already received); ${gaps.length} sockets lost events (${unsent} events never sent)`,
    );
    expect(
      gaps.length,
      `seed ${SEED}: ${gaps.length} of ${followed.length} sockets lost events under the host rule:\n${gaps.slice(0, 3).join('\n')}`,
    ).toBe(0);
    for (const f of followed) {
      const rule = hostRule(f.frames, f.afterSeq);
      expect(rule.kept, `seed ${SEED}, ${f.where}`).toEqual(f.expected);
    }
    // What each host ended up with over all its sockets: the whole turn from its first after_seq.
    for (const turn of turns) {
      for (const h of turn.hosts) {
        const view = [
          ...(h.lost ? hostRule(h.lost.frames, h.lost.afterSeq).kept : []),
          ...hostRule(h.frames, h.afterSeq).kept,
        ];
        const where = `seed ${SEED}, host ${h.host}`;
        expect(
          view.map((e) => e.seq),
          where,
        ).toEqual(range((h.lost?.afterSeq ?? h.afterSeq) + 1, turn.finalSeq));
        expect(
          view.some((e) => e.type === 'final_response' && e.run_id === turn.runId),
          where,
        ).toBe(true);
        expect(view.at(-1), where).toMatchObject({ type: 'session.status_idle', run_id: turn.runId });
      }
    }
    expect(phones).toBeGreaterThan(0);
    // The point is the join racing the stream: the turn is held open until every join was
    // answered, so every reconnect happened while it ran.
    expect(
      turns.flatMap((t) => t.hosts.filter((h) => !h.midStream).map((h) => h.host)),
      `seed ${SEED}: hosts whose join was answered after the turn ended`,
    ).toEqual([]);
    // A seq arrives twice only when the join's replay and the live stream both carried it: at
    // most twice, and never past the last seq the replay sent.
    for (const f of followed) {
      const counts = new Map<number, number>();
      for (const e of f.frames) counts.set(e.seq as number, (counts.get(e.seq as number) ?? 0) + 1);
      const beyondReplay = [...counts]
        .filter(([seq, count]) => count > 2 || (count > 1 && seq > f.replayedThrough))
        .map(([seq, count]) => `seq ${seq} ×${count}`);
      expect(beyondReplay, `seed ${SEED}, ${f.where}, replayed through ${f.replayedThrough}`).toEqual([]);
    }
  });

  it('an event too big for one WebSocket message (and for a DynamoDB item) arrives as a reference, and the full event is read over HTTP', async () => {
    const sessionId = sid('big');
    const lengths: number[] = [];
    const record = (socket: WebSocket) =>
      socket.on('message', (data) => {
        lengths.push(Array.isArray(data) ? data.reduce((s, b) => s + b.byteLength, 0) : data.byteLength);
      });
    const sender = await TestSocket.open(sandbox.wsUrl);
    record(sender.socket);
    const accepted = await sender.request({
      action: 'assistant_message',
      session_id: sessionId,
      agent_id: 'big',
      content: 'dump it',
    });
    expect(accepted.type).toBe('assistant:accepted');
    const runId = accepted.run_id as string;
    await sender.waitFor(idleOf(sessionId, runId), 'the idle');
    // The same frame live (the sender) and in a replay (a host that joins afterwards).
    const late = await TestSocket.open(sandbox.wsUrl);
    record(late.socket);
    const answer = await late.request({
      action: 'assistant_join_session',
      session_id: sessionId,
      after_seq: 0,
    });
    expect(answer.type).toBe('assistant:joined');
    await Promise.all([sender.close(), late.close()]);

    const log = await readLog(sessionId);
    const stored = log.find((e) => e.type === 'agent.tool_result');
    expect(stored?.data).toMatchObject({ id: 't1', name: 'dump' });
    for (const socket of [sender, late]) {
      expect(socket.events(sessionId).map((f) => f.seq)).toEqual(log.map((e) => e.seq));
      const frame = socket.events(sessionId).find((f) => f.type === 'agent.tool_result');
      expect(frame).toMatchObject({
        seq: stored?.seq,
        session_id: sessionId,
        run_id: runId,
        at: stored?.at,
        data: {},
        truncated: true,
      });
      expect(Object.keys(frame?.data as object)).toEqual([]);
      expect(frame?.href).toBe(`/api/sessions/${sessionId}/events/${stored?.seq}`);
      const res = await api<Frame>(sandbox.url, 'GET', frame?.href as string);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ seq: stored?.seq, type: 'agent.tool_result', run_id: runId });
      const result = (res.json.data as { result?: unknown } | undefined)?.result;
      expect(result).toBe('x'.repeat(350_000));
      // Every other frame is the event itself.
      for (const f of socket.events(sessionId).filter((e) => e !== frame)) {
        expect(f).toEqual(log.find((e) => e.seq === f.seq));
      }
    }
    expect(lengths.length).toBe(sender.rawFrames + late.rawFrames);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(128 * 1024);
    expect(Math.max(...lengths)).toBeGreaterThan(0);
  });

  it('a host without WebSocket follows the same log over HTTP with after and a long-poll wait', async () => {
    const sessionId = sid('http');
    // The turn ends only after the first poll was answered, so following it takes more than one.
    const held = hold(sessionId);
    const received: Frame[] = [];
    let after = 0;
    let polls = 0;
    try {
      const posted = await api(sandbox.url, 'POST', '/api/chat', {
        session_id: sessionId,
        agent_id: 'paced',
        content: '100',
      });
      expect(posted.status).toBe(202);
      const runId = posted.json.run_id as string;
      while (!received.some(idleOf(sessionId, runId))) {
        polls += 1;
        expect(polls, `polls after seq ${after}`).toBeLessThan(500);
        const res = await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/events?after=${after}&wait=15`);
        expect(res.status).toBe(200);
        const events = res.json.events as Frame[];
        // A long-poll answers as soon as something is there, never empty-handed before the turn's end.
        expect(events.length, `the poll after seq ${after}`).toBeGreaterThan(0);
        received.push(...events);
        after = events.at(-1)?.seq ?? after;
        held.open();
      }
      expect(received.at(-1)).toMatchObject({ type: 'session.status_idle', run_id: runId });
    } finally {
      held.open();
    }
    const seqs = received.map((f) => f.seq);
    expect(seqs).toEqual(range(1, seqs.length));
    expect(received.filter((f) => f.type === 'agent.message.delta')).toHaveLength(100);
    expect(received).toEqual(await readLog(sessionId));
    expect(polls).toBeGreaterThan(1);
  });
});
