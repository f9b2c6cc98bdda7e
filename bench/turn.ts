/**
 * What a turn costs and how fast it streams, on the sandbox, as one table: the AWS calls of the
 * standard turn (500 text chunks at 50 chunks/s, 2 backend tool calls, 1 approval answered, 50 chunks
 * more, 2 connections joined) by service, operation and kind, its request units and post bytes, beside
 * the same turn in a per-token design and at the floor; its cost per million turns by service; emit-to-
 * client latency beside the raw WebSocket and bare PostToConnection floors; 200 sessions streaming at
 * once; bundle sizes and cold imports (bench/bundles.ts); and cancel latency.
 *
 * Run: `npm run bench` (all of it), `npm run bench:cancel` (the cancel part). TURNS (3), SESSIONS
 * (200) and CANCELS (10) change the counts.
 */
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseSettings } from '../lib/config/index.ts';
import { createSwitchboard } from '../lib/index.ts';
import { subscribers } from '../lib/store/index.ts';
import { type MeteredCall, type MeterRow, type MeterSnapshot, meter } from '../sandbox/metering.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { measureBundles } from './bundles.ts';
import { type CpuOwner, type CpuShares, profiled } from './cpu.ts';
import { barePostFloor, bareWriteFloor, rawWebSocketFloor } from './floors.ts';
import { type CostPerMillion, costPerMillion, PRICES, type TurnUsage } from './prices.ts';
import { fmt, mean, quantile, Table, usd, verdict, windowsOf } from './report.ts';
import {
  APPROVAL_ID,
  chunksIn,
  type EmitRecord,
  expectedText,
  idleAgent,
  pacedAgent,
  STANDARD_TURN,
  type TurnShape,
} from './support/agents.ts';
import { TEST_LIMITS } from './support/limits.ts';
import { api, refOf, TEST_REF_KEY } from './support/sandbox-api.ts';
import { TestSocket, turnEnded } from './support/ws-client.ts';

/**
 * `--smoke`: every phase once, in a tiny configuration (a few chunks, two sessions, one cancel, the
 * HTTP function's bundle): what `test/bench/smoke.test.ts` runs on every `npm test`, so the bench
 * cannot rot. Its figures mean nothing.
 */
const SMOKE = process.argv.includes('--smoke');
const TURNS = Number(process.env.TURNS ?? (SMOKE ? 1 : 3));
const SESSIONS = Number(process.env.SESSIONS ?? (SMOKE ? 2 : 200));
const CANCELS = Number(process.env.CANCELS ?? (SMOKE ? 1 : 10));
/** The standard turn, or the smoke run's few chunks of the same parts (tools, approval, the answer's run). */
const TURN_SHAPE: TurnShape = SMOKE
  ? { before: 12, after: 4, intervalMs: 5, toolCalls: 1, approval: true }
  : STANDARD_TURN;
/** The chunks of each of the many sessions' turns. */
const MANY_CHUNKS = SMOKE ? 10 : 100;
/** How long the 200 sessions may take, from the agents' release, before what is missing counts as lost. */
const MANY_DEADLINE_MS = Number(process.env.MANY_DEADLINE_MS ?? 60_000);
const ONLY_CANCEL = process.argv.includes('cancel');
const CONNECTIONS = 2;
const TURN_TIMEOUT_MS = 180_000;

const here = dirname(fileURLToPath(import.meta.url));
/** The flush window: the default, or WINDOW_MS to measure another (how the default was chosen). */
const COALESCE_MS = Number(process.env.WINDOW_MS ?? parseSettings(undefined).stream.coalesceMs);
const STREAM = { coalesceMs: COALESCE_MS };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The sandbox, its agents and the meter
// ---------------------------------------------------------------------------------------------

const paced = pacedAgent();
const idle = idleAgent();
const app = createSwitchboard();
app.registerHostAgent(paced.definition);
app.registerHostAgent(idle.definition);
const sandbox = await startSandbox({
  // The key refOf keys refs with, so the bench names its sessions by ref as the sandbox stores them.
  refKey: TEST_REF_KEY,
  app,
  port: 0,
  logLevel: 'ERROR',
  // The sweep runs once an hour here: its calls are not a turn's.
  sweepPeriodMs: 3_600_000,
  // Far above what 200 sessions of one (anonymous) user send; the production defaults would refuse them.
  settings: { limits: TEST_LIMITS, stream: STREAM },
});
const meterOf = meter(sandbox.runtimes);
/** Worker job receipts (`performance.now()`), for the worker's billed duration. */
let jobReceipts: number[] = [];
meterOf.onCall = (call: MeteredCall) => {
  if (call.fn === 'worker' && call.kind === 'job-receive') jobReceipts.push(call.at);
};

/** An event as a host received it, with when. */
interface Arrival {
  seq: number;
  type: string;
  sessionId: string;
  runId: string;
  text: string;
  /** The event's `at`, epoch ms. */
  stamped: number;
  at: number;
}

/**
 * Records every event `socket` receives, with its arrival time: a frame that is one event, or a
 * batch (`{"type":"events","events":[…]}`). Returns the list it fills and a count of raw frames.
 */
function recordArrivals(socket: TestSocket): { arrivals: Arrival[]; frames: () => number } {
  const arrivals: Arrival[] = [];
  let frames = 0;
  socket.socket.on('message', (raw) => {
    const at = performance.now();
    frames += 1;
    let frame: unknown;
    try {
      frame = JSON.parse(String(raw));
    } catch {
      return;
    }
    const f = frame as { type?: unknown; events?: unknown };
    const events = f.type === 'events' && Array.isArray(f.events) ? (f.events as unknown[]) : [frame];
    for (const e of events) {
      const ev = e as {
        seq?: unknown;
        type?: unknown;
        session_id?: unknown;
        run_id?: unknown;
        at?: unknown;
        data?: unknown;
      };
      if (typeof ev.seq !== 'number') continue;
      const data = (ev.data ?? {}) as { text?: unknown };
      arrivals.push({
        seq: ev.seq,
        type: String(ev.type),
        sessionId: String(ev.session_id),
        runId: String(ev.run_id ?? ''),
        text: typeof data.text === 'string' ? data.text : '',
        stamped: Date.parse(String(ev.at)),
        at,
      });
    }
  });
  return { arrivals, frames: () => frames };
}

/** A run's first chunk (`a0` of the turn, `b0` of the answer's run): the agent's first emit after a quiet time. */
const FIRST_CHUNK = /^[ab]0 $/;

/**
 * Emit-to-arrival latencies (ms) of every chunk the record holds that reached the host, those of each
 * run's first chunk apart; and how many did not arrive.
 */
function chunkLatencies(
  record: EmitRecord,
  arrivals: Arrival[],
): { latencies: number[]; first: number[]; missing: number } {
  const firstArrival = new Map<string, number>();
  for (const a of arrivals) {
    if (a.type !== 'agent.message.delta') continue;
    for (const chunk of chunksIn(a.text)) if (!firstArrival.has(chunk)) firstArrival.set(chunk, a.at);
  }
  const latencies: number[] = [];
  const first: number[] = [];
  let missing = 0;
  for (const [chunk, emitted] of record.chunks) {
    const arrived = firstArrival.get(chunk);
    if (arrived === undefined) missing += 1;
    else (FIRST_CHUNK.test(chunk) ? first : latencies).push(arrived - emitted);
  }
  return { latencies, first, missing };
}

/** The distinct events (by seq) of a list of arrivals, in seq order. */
function distinctEvents(arrivals: Arrival[]): Arrival[] {
  const bySeq = new Map<number, Arrival>();
  for (const a of arrivals) if (!bySeq.has(a.seq)) bySeq.set(a.seq, a);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** The construct's memory sizes (MB), read from infra/props.ts's defaults. */
async function memorySizes(): Promise<{ worker: number; other: number; note: string }> {
  try {
    const { checkSwitchboardProps } = await import('../infra/props.ts');
    const { resolved: props } = checkSwitchboardProps({
      agents: resolve(here, '../demo/agents.ts'),
      allowAnonymous: true,
    });
    return { worker: props.workerMemorySize, other: props.memorySize, note: 'infra/props.ts defaults' };
  } catch (error) {
    return { worker: 1024, other: 512, note: `assumed (infra/props.ts could not be read: ${String(error)})` };
  }
}

// ---------------------------------------------------------------------------------------------
// The standard turn
// ---------------------------------------------------------------------------------------------

interface TurnResult {
  snapshot: MeterSnapshot;
  chunks: number;
  /** Events of the log that are not text deltas (tool events, status, user message, answer, …). */
  otherEvents: number;
  /** The agent's emits grouped into windows of coalesceMs. */
  emitWindows: number;
  /** The log's events grouped by their `at` into windows of coalesceMs. */
  logWindows: number;

  latencies: number[];
  /** Latencies of each run's first chunk, on every connection. */
  firstLatencies: number[];
  missing: number;
  /** Raw frames each connection received. */
  framesPerConnection: number[];
  connectionMinutes: number;
  wsInvocationMs: number[];
  httpInvocationMs: number[];
  workerInvocationMs: number[];
  /** Frames the hosts sent (each answered by one route response). */
  hostFrames: number;
}

async function standardTurn(n: number, shape: TurnShape): Promise<TurnResult> {
  const sessionId = `std-${n}`;
  await sleep(300);
  meterOf.reset();
  jobReceipts = [];
  const wsInvocationMs: number[] = [];
  const opened = performance.now();
  const sockets: TestSocket[] = [];
  for (let i = 0; i < CONNECTIONS; i += 1) {
    const t = performance.now();
    sockets.push(await TestSocket.open(sandbox.wsUrl));
    wsInvocationMs.push(performance.now() - t);
  }
  const [sender, joiner] = sockets as [TestSocket, TestSocket];
  const logs = sockets.map(recordArrivals);
  let t = performance.now();
  const accepted = await sender.request({
    action: 'assistant_message',
    id: `std-${n}`,
    session_id: sessionId,
    agent_id: 'paced',
    content: JSON.stringify(shape),
  });
  wsInvocationMs.push(performance.now() - t);
  if (accepted.type !== 'assistant:accepted') throw new Error(`not accepted: ${JSON.stringify(accepted)}`);
  t = performance.now();
  await joiner.request({ action: 'assistant_join_session', session_id: sessionId, after_seq: 0 });
  wsInvocationMs.push(performance.now() - t);
  paced.release(sessionId);

  const runEnds: number[] = [];
  await sender.waitFor(turnEnded(accepted.run_id), 'the turn to pause', TURN_TIMEOUT_MS);
  runEnds.push(performance.now());
  const httpInvocationMs: number[] = [];
  let runId = accepted.run_id;
  if (shape.approval) {
    t = performance.now();
    const answer = await api<{ run_id: string }>(
      sandbox.url,
      'POST',
      `/api/sessions/${sessionId}/actions/${APPROVAL_ID}`,
      { decision: 'approve' },
    );
    httpInvocationMs.push(performance.now() - t);
    if (answer.status !== 202) throw new Error(`the answer was refused: ${answer.status} ${answer.text}`);
    runId = answer.json.run_id;
    await sender.waitFor(turnEnded(runId), 'the answer to run', TURN_TIMEOUT_MS);
    runEnds.push(performance.now());
  }
  await joiner.waitFor(turnEnded(runId), 'the joined host to see the end', TURN_TIMEOUT_MS);
  const before = [...sockets.map((s) => s.close())];
  await Promise.all(before);
  const closed = performance.now();
  // $disconnect has no answer to wait for; measured like a route that writes a little.
  wsInvocationMs.push(...Array.from({ length: CONNECTIONS }, () => mean(wsInvocationMs.slice(CONNECTIONS))));
  await sleep(500);
  const snapshot = meterOf.snapshot();

  const record = paced.recordOf(sessionId);
  const all = logs.flatMap((l) => l.arrivals).filter((a) => a.sessionId === sessionId);
  const events = distinctEvents(logs[0]?.arrivals ?? []);
  const { latencies, first, missing } = chunkLatencies(record, all);
  const receipts = [...jobReceipts].sort((a, b) => a - b);
  const result: TurnResult = {
    snapshot,
    chunks: record.chunks.size,
    otherEvents: events.filter((e) => e.type !== 'agent.message.delta').length,
    emitWindows: windowsOf(record.emits, COALESCE_MS),
    logWindows: windowsOf(
      events.map((e) => e.stamped),
      COALESCE_MS,
    ),
    latencies,
    firstLatencies: first,
    missing: missing + logs.slice(1).reduce((s, l) => s + chunkLatencies(record, l.arrivals).missing, 0),
    framesPerConnection: logs.map((l) => l.frames()),
    connectionMinutes: (CONNECTIONS * (closed - opened)) / 60_000,
    wsInvocationMs,
    httpInvocationMs,
    workerInvocationMs: runEnds.map((end, i) => end - (receipts[i] ?? end)),
    hostFrames: 2,
  };
  paced.forget(sessionId);
  return result;
}

// ---------------------------------------------------------------------------------------------
// 200 sessions at once
// ---------------------------------------------------------------------------------------------

interface ManyResult {
  sessions: number;
  /** Sessions whose turn ended (on the host's socket) before the deadline. */
  completed: number;
  /** Chunks that never reached their host by the deadline. */
  lost: number;
  duplicated: number;
  outOfOrder: number;
  /** Sessions whose received seqs are not 1, 2, 3, … */
  gaps: number;
  latencies: number[];
  /** From the release of the agents to the last end, or to the deadline. */
  wallMs: number;
  calls: number;
  /** Whether the deadline cut the run short (its sandbox is then left to the process's exit). */
  cutShort: boolean;
  /** The CPU this process spent from the release to the last end, by whose code it ran. */
  cpu: CpuShares;
}

/**
 * `count` sessions streaming at once, on a sandbox of their own (so that a backlog they leave
 * cannot slow the other parts), each with one connection. Turns that have not ended `deadlineMs`
 * after the agents were let go are counted as lost where they had not delivered.
 */
async function manySessions(count: number, deadlineMs: number): Promise<ManyResult> {
  const shape: TurnShape = { before: MANY_CHUNKS, after: 0, intervalMs: 20, toolCalls: 0, approval: false };
  const own = await startSandbox({
    app,
    port: 0,
    logLevel: 'ERROR',
    sweepPeriodMs: 3_600_000,
    // As on AWS, where the queue's visibility is above the worker's timeout: a slow turn's job is not
    // delivered again while it runs.
    visibilityTimeoutSeconds: 330,
    settings: { limits: TEST_LIMITS, stream: STREAM },
    // Every session's first frame at once, as Lambda would take them: the pool does not refuse any.
    concurrency: count,
  });
  const counting = meter(own.runtimes);
  const sockets: TestSocket[] = [];
  for (let i = 0; i < count; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, () => TestSocket.open(own.wsUrl)),
    );
    sockets.push(...batch);
  }
  const logs = sockets.map(recordArrivals);
  const ids = sockets.map((_, i) => `many-${i}`);
  const accepted = await Promise.all(
    sockets.map((s, i) =>
      s.request({
        action: 'assistant_message',
        session_id: ids[i],
        agent_id: 'paced',
        content: JSON.stringify(shape),
      }),
    ),
  );
  const started = performance.now();
  let last = started;
  const { result: ended, cpu } = await profiled(() => {
    for (const id of ids) paced.release(id);
    return Promise.all(
      sockets.map((s, i) =>
        s.waitFor(turnEnded(accepted[i]?.run_id), `session ${ids[i]} to end`, deadlineMs).then(
          () => {
            last = Math.max(last, performance.now());
            return true;
          },
          () => false,
        ),
      ),
    );
  });
  const completed = ended.filter(Boolean).length;
  const expected = expectedText(shape);
  const result: ManyResult = {
    sessions: count,
    completed,
    lost: 0,
    duplicated: 0,
    outOfOrder: 0,
    gaps: 0,
    latencies: [],
    wallMs: (completed === count ? last : performance.now()) - started,
    calls: counting.snapshot().count((r) => r.kind !== 'idle-receive'),
    cutShort: completed < count,
    cpu,
  };
  counting.stop();
  ids.forEach((id, i) => {
    const arrivals = (logs[i]?.arrivals ?? []).filter((a) => a.sessionId === id);
    const seqs = arrivals.map((a) => a.seq);
    result.duplicated += seqs.length - new Set(seqs).size;
    result.outOfOrder += seqs.filter((s, k) => k > 0 && s < (seqs[k - 1] ?? 0)).length;
    const distinct = [...new Set(seqs)].sort((a, b) => a - b);
    result.gaps += distinct.some((s, k) => s !== k + 1) ? 1 : 0;
    const text = distinctEvents(arrivals)
      .filter((a) => a.type === 'agent.message.delta')
      .map((a) => a.text)
      .join('');
    const { latencies, missing } = chunkLatencies(paced.recordOf(id), arrivals);
    // A text that differs from what was streamed, with every chunk present, is a chunk out of order.
    if (text !== expected && missing === 0) result.outOfOrder += 1;
    const lost = shape.before - paced.recordOf(id).chunks.size + missing;
    result.lost += lost;
    // An undelivered chunk is later than any delivered one: it counts in the percentiles as never.
    result.latencies.push(...latencies, ...Array.from({ length: lost }, () => Number.POSITIVE_INFINITY));
    paced.forget(id);
  });
  if (!result.cutShort) {
    await Promise.all(sockets.map((s) => s.close()));
    await own.close();
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Cancel
// ---------------------------------------------------------------------------------------------

interface CancelResult {
  latencies: number[];
  waitingSeconds: number;
  runPolls: number;
  runPollRru: number;
  /** Every GetItem of a run item in the phase (the polls, and the worker's reads at claim and close). */
  phaseRunReads: number;
  leaseRenews: number;
  failures: number;
}

async function cancels(count: number): Promise<CancelResult> {
  await sleep(300);
  meterOf.reset();
  // The worker's reads of the run item, with when: those made while an agent waits are what waiting costs.
  const runReads: { at: number; rru: number }[] = [];
  const listener = meterOf.onCall;
  meterOf.onCall = (call) => {
    listener?.(call);
    if (call.fn === 'worker' && call.kind === 'run-poll') runReads.push({ at: call.at, rru: call.rru });
  };
  const host = await TestSocket.open(sandbox.wsUrl);
  const latencies: number[] = [];
  const waits: [number, number][] = [];
  let failures = 0;
  for (let i = 0; i < count; i += 1) {
    const sessionId = `cancel-${i}`;
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: sessionId,
      agent_id: 'idle',
      content: 'wait on the backend',
    });
    const startedAt = await idle.started(sessionId);
    // Spread the cancels over the poll interval: 300 ms to 1 s after the agent started waiting.
    await sleep(300 + ((i * 137) % 700));
    const t0 = performance.now();
    const res = await api(sandbox.url, 'POST', `/api/sessions/${sessionId}/cancel`);
    if (res.status >= 300) failures += 1;
    const abortedAt = await Promise.race([idle.aborted(sessionId), sleep(10_000).then(() => Number.NaN)]);
    if (Number.isNaN(abortedAt)) failures += 1;
    else {
      latencies.push(abortedAt - t0);
      waits.push([startedAt, abortedAt]);
    }
    await host.waitFor(turnEnded(accepted.run_id, sessionId), 'the cancelled turn to close', 30_000);
  }
  await host.close();
  await sleep(300);
  meterOf.onCall = listener;
  const s = meterOf.snapshot();
  const whileWaiting = runReads.filter((r) => waits.some(([from, to]) => r.at >= from && r.at <= to));
  return {
    latencies,
    waitingSeconds: waits.reduce((sum, [from, to]) => sum + (to - from), 0) / 1000,
    runPolls: whileWaiting.length,
    runPollRru: whileWaiting.reduce((sum, r) => sum + r.rru, 0),
    phaseRunReads: s.count((r) => r.kind === 'run-poll'),
    leaseRenews: s.count((r) => r.kind === 'lease-renew'),
    failures,
  };
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

const table = new Table(['measure', 'Switchboard', 'per-token', 'floor / target', 'ratio', 'goal']);
const goals = new Table(['goal', 'figure', 'floor / target', 'ratio', 'verdict']);
const benchStarted = performance.now();
/** The standard turn's p99 emit-to-client latency, the 200 sessions' yardstick. */
let singleP99 = Number.NaN;

if (!ONLY_CANCEL) {
  // Latency floors first, while nothing else runs.
  const rawWs = await rawWebSocketFloor();
  const floorHost = await TestSocket.open(sandbox.wsUrl);
  const floorSession = 'floor-post';
  paced.release(floorSession);
  const created = await floorHost.request({
    action: 'assistant_message',
    session_id: floorSession,
    agent_id: 'paced',
    content: JSON.stringify({ before: 1, after: 0, intervalMs: 0, toolCalls: 0, approval: false }),
  });
  await floorHost.waitFor(turnEnded(created.run_id), 'the floor session to settle', 30_000);
  const [{ connectionId } = { connectionId: undefined }] = await subscribers(
    sandbox.runtime,
    refOf(floorSession),
  );
  const connections = await sandbox.runtimes.worker.connections?.();
  if (!connectionId || !connections) throw new Error('no connection to measure the bare post on');
  const barePost = await barePostFloor(connections, connectionId, floorHost.socket);
  await floorHost.close();
  const bareWrite = await bareWriteFloor(sandbox.runtimes.worker, 'floor-write');

  // The standard turn, TURNS times.
  const turns: TurnResult[] = [];
  for (let n = 0; n < TURNS; n += 1) turns.push(await standardTurn(n, TURN_SHAPE));
  const memory = await memorySizes();

  const per = (f: (t: TurnResult) => number) => mean(turns.map(f));
  const rowsPerTurn = new Map<string, MeterRow & { perTurn: number }>();
  for (const t of turns) {
    for (const r of t.snapshot.rows) {
      if (r.kind === 'idle-receive') continue;
      const key = `${r.service} ${r.operation} ${r.kind} ${r.fn}`;
      const acc = rowsPerTurn.get(key) ?? {
        ...r,
        calls: 0,
        rru: 0,
        wru: 0,
        bytes: 0,
        requestUnits: 0,
        perTurn: 0,
      };
      acc.calls += r.calls / TURNS;
      acc.rru += r.rru / TURNS;
      acc.wru += r.wru / TURNS;
      acc.bytes += r.bytes / TURNS;
      acc.requestUnits += r.requestUnits / TURNS;
      rowsPerTurn.set(key, acc);
    }
  }
  const rows = [...rowsPerTurn.values()];
  const sumOf = (field: 'calls' | 'rru' | 'wru' | 'bytes' | 'requestUnits', f: (r: MeterRow) => boolean) =>
    rows.filter(f).reduce((s, r) => s + r[field], 0);
  const isEventWrite = (r: MeterRow) => r.kind === 'event-write';
  const isSubscriberRead = (r: MeterRow) => r.kind === 'subscriber-read';
  const isEventPost = (r: MeterRow) => r.kind === 'event-post';
  const isFixed = (r: MeterRow) => !isEventWrite(r) && !isSubscriberRead(r) && !isEventPost(r);
  const isPost = (r: MeterRow) => r.service === 'ApiGateway' && r.operation === 'PostToConnection';
  const all = () => true;

  const chunks = per((t) => t.chunks);
  const events = chunks + per((t) => t.otherEvents);
  const windows = per((t) => t.emitWindows);
  const idleReceives = mean(turns.map((t) => t.snapshot.count((r) => r.kind === 'idle-receive')));

  // Usage common to all three designs: Lambda, connection minutes, SQS, S3, HTTP, host frames.
  const lambdaGbSeconds = per(
    (t) =>
      ((memory.worker / 1024) * t.workerInvocationMs.reduce((a, b) => a + Math.ceil(b), 0)) / 1000 +
      ((memory.other / 1024) *
        [...t.wsInvocationMs, ...t.httpInvocationMs].reduce((a, b) => a + Math.ceil(b), 0)) /
        1000,
  );
  const lambdaRequests = per(
    (t) => t.workerInvocationMs.length + t.wsInvocationMs.length + t.httpInvocationMs.length,
  );
  const hostMessages = per((t) => 2 * t.hostFrames); // each frame a host sends, and its route answer
  const common = {
    connectionMinutes: per((t) => t.connectionMinutes),
    httpRequests: per((t) => t.httpInvocationMs.length),
    sqsRequests: sumOf('requestUnits', (r) => r.service === 'SQS'),
    s3Puts: sumOf(
      'calls',
      (r) => r.service === 'S3' && /^(Put|Copy|Post|List|Create|Upload)/.test(r.operation),
    ),
    s3Gets: sumOf(
      'calls',
      (r) => r.service === 'S3' && !/^(Put|Copy|Post|List|Create|Upload)/.test(r.operation),
    ),
    lambdaRequests,
    lambdaGbSeconds,
  };
  const fixed = {
    calls: sumOf('calls', isFixed),
    wru: sumOf('wru', isFixed),
    rru: sumOf('rru', isFixed),
    wsMessages: sumOf('requestUnits', (r) => isFixed(r) && isPost(r)) + hostMessages,
  };
  const switchboard: TurnUsage & { calls: number } = {
    calls: sumOf('calls', all),
    wru: sumOf('wru', all),
    rru: sumOf('rru', all),
    webSocketMessages: sumOf('requestUnits', isPost) + hostMessages,
    ...common,
  };
  // Per-token: every chunk and every other event is one item written, one subscriber Query (1 RRU,
  // strongly consistent, a few small items) and one post (one 32 KB unit) per connection.
  const perToken: TurnUsage & { calls: number } = {
    calls: fixed.calls + events * (2 + CONNECTIONS),
    wru: fixed.wru + events,
    rru: fixed.rru + events,
    webSocketMessages: fixed.wsMessages + events * CONNECTIONS,
    ...common,
  };
  // The floor: one small write per storage window, one post per connection per live window (both windows
  // are coalesceMs), no subscriber read.
  const floor: TurnUsage & { calls: number } = {
    calls: fixed.calls + windows * (1 + CONNECTIONS),
    wru: fixed.wru + windows,
    rru: fixed.rru,
    webSocketMessages: fixed.wsMessages + windows * CONNECTIONS,
    ...common,
  };
  const cost = {
    switchboard: costPerMillion(switchboard),
    perToken: costPerMillion(perToken),
    floor: costPerMillion(floor),
  };

  table.section(
    `Standard turn, ${TURNS} runs averaged: ${TURN_SHAPE.before} chunks at ${1000 / TURN_SHAPE.intervalMs}/s, ` +
      `${TURN_SHAPE.toolCalls} tool calls, 1 approval, ${TURN_SHAPE.after} chunks, ${CONNECTIONS} connections; ` +
      `stream.coalesceMs ${COALESCE_MS}${process.env.WINDOW_MS ? '' : ' (default)'}; calls per turn`,
  );
  const perTokenOf = (r: MeterRow) =>
    isEventWrite(r)
      ? 'per event'
      : isSubscriberRead(r)
        ? 'per event'
        : isEventPost(r)
          ? 'per event × conn'
          : '=';
  for (const r of rows.sort((a, b) =>
    `${a.service}${a.operation}${a.kind}`.localeCompare(`${b.service}${b.operation}${b.kind}`),
  )) {
    const floorCalls = isEventWrite(r)
      ? 'per window'
      : isSubscriberRead(r)
        ? '0'
        : isEventPost(r)
          ? 'per window × conn'
          : '=';
    table.row(
      `${r.service} ${r.operation} [${r.kind}] (${r.fn})`,
      fmt(r.calls),
      perTokenOf(r),
      floorCalls,
      '',
      '',
    );
  }
  table.row(
    '  (idle SQS receives of the poller, not counted: per second, not per turn)',
    fmt(idleReceives),
    '',
    '',
    '',
    '',
  );
  table.section('Per turn, the three designs (same fixed calls)');
  table.row(
    'chunks (text emits) / other events / windows of coalesceMs',
    `${fmt(chunks, 0)} / ${fmt(events - chunks, 0)} / ${fmt(windows, 0)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'AWS requests (DynamoDB, SQS, S3, PostToConnection)',
    fmt(switchboard.calls),
    fmt(perToken.calls),
    fmt(floor.calls),
    fmt(switchboard.calls / perToken.calls, 3),
    '≤ 0.1 of per-token',
  );
  table.row(
    '  fixed (not event writes, subscriber reads or event posts)',
    fmt(fixed.calls),
    fmt(fixed.calls),
    fmt(fixed.calls),
    '',
    '',
  );
  table.row('  event-log writes', fmt(sumOf('calls', isEventWrite)), fmt(events), fmt(windows), '', '');
  table.row('  subscriber reads', fmt(sumOf('calls', isSubscriberRead)), fmt(events), '0', '', '');
  table.row(
    '  event posts (all connections)',
    fmt(sumOf('calls', isEventPost)),
    fmt(events * CONNECTIONS),
    fmt(windows * CONNECTIONS),
    '',
    '',
  );
  table.row(
    '  raw frames received per connection',
    turns[0]?.framesPerConnection.map((f) => fmt(f, 0)).join(' / ') ?? '',
    '',
    '',
    '',
    '',
  );
  table.row(
    'DynamoDB write request units',
    fmt(switchboard.wru),
    fmt(perToken.wru),
    fmt(floor.wru),
    fmt(switchboard.wru / floor.wru, 2),
    '',
  );
  table.row('  of event-log writes', fmt(sumOf('wru', isEventWrite)), fmt(events), fmt(windows), '', '');
  table.row(
    'DynamoDB read request units',
    fmt(switchboard.rru),
    fmt(perToken.rru),
    fmt(floor.rru),
    fmt(switchboard.rru / floor.rru, 2),
    '',
  );
  table.row('PostToConnection bytes', fmt(sumOf('bytes', isPost), 0), '', '', '', '');
  table.row(
    'WebSocket messages billed (posts per 32 KB + host frames + answers)',
    fmt(switchboard.webSocketMessages),
    fmt(perToken.webSocketMessages),
    fmt(floor.webSocketMessages),
    '',
    '',
  );
  table.row('connection minutes', fmt(common.connectionMinutes, 3), '=', '=', '', '');
  table.row(
    'Lambda requests / GB-s (worker, ws, http; arm64)',
    `${fmt(lambdaRequests)} / ${fmt(lambdaGbSeconds, 2)}`,
    '=',
    '=',
    '',
    '',
  );
  table.row(
    `  memory: worker ${memory.worker} MB, others ${memory.other} MB (${memory.note})`,
    '',
    '',
    '',
    '',
    '',
  );
  table.row(
    '  worker ms per invocation, job receipt to end of run (turn / answer, mean)',
    [0, 1].map((i) => fmt(mean(turns.map((t) => t.workerInvocationMs[i] ?? Number.NaN)), 0)).join(' / '),
    '',
    '',
    '',
    '',
  );
  if (turns.some((t) => t.snapshot.sum('estimated') > 0))
    table.row('  some request units computed from item sizes (no ConsumedCapacity)', '', '', '', '', '');

  table.section(
    `Cost per million standard turns, ${PRICES.region} list prices of ${PRICES.checked} (bench/prices.ts)`,
  );
  for (const service of [
    'dynamodb',
    'apiGateway',
    'sqs',
    's3',
    'lambda',
    'total',
  ] as const satisfies readonly (keyof CostPerMillion)[]) {
    table.row(
      service,
      usd(cost.switchboard[service]),
      usd(cost.perToken[service]),
      usd(cost.floor[service]),
      service === 'total' ? fmt(cost.switchboard.total / cost.floor.total, 2) : '',
      service === 'total' ? '≤ 1.5 × floor' : '',
    );
  }

  // Latency
  const latencies = turns.flatMap((t) => t.latencies);
  const missing = turns.reduce((s, t) => s + t.missing, 0);
  const p50 = quantile(latencies, 0.5);
  const p99 = quantile(latencies, 0.99);
  singleP99 = p99;
  const rawP50 = quantile(rawWs, 0.5);
  const postP50 = quantile(barePost, 0.5);
  const writeP50 = quantile(bareWrite, 0.5);
  const latencyTarget = COALESCE_MS / 2 + 2 * postP50;
  const firsts = turns.flatMap((t) => t.firstLatencies);
  const firstP50 = quantile(firsts, 0.5);
  const firstTarget = writeP50 + postP50 + 5;
  table.section('Emit-to-client latency (agent emit → host socket), ms');
  table.row(
    `a run's first chunk p50 / p99 (${firsts.length} arrivals)`,
    `${fmt(firstP50)} / ${fmt(quantile(firsts, 0.99))}`,
    '',
    `${fmt(firstTarget)} (write + post + 5 ms)`,
    fmt(firstP50 / firstTarget, 2),
    '',
  );
  table.row(
    `the other chunks p50 / p99 (${latencies.length} arrivals, ${missing} missing)`,
    `${fmt(p50)} / ${fmt(p99)}`,
    '',
    `${fmt(latencyTarget)} (coalesceMs / 2 + 2 × bare post)`,
    fmt(p50 / latencyTarget, 2),
    '',
  );
  table.row(
    'floor: raw ws on loopback p50 / p99',
    `${fmt(rawP50, 3)} / ${fmt(quantile(rawWs, 0.99), 3)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'floor: bare SDK PostToConnection (worker client) p50 / p99',
    `${fmt(postP50, 2)} / ${fmt(quantile(barePost, 0.99), 2)}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    'floor: bare event-log write, one conditional PutItem (worker client) p50 / p99',
    `${fmt(writeP50, 2)} / ${fmt(quantile(bareWrite, 0.99), 2)}`,
    '',
    '',
    '',
    '',
  );

  const requestRatio = switchboard.calls / perToken.calls;
  const eventWru = sumOf('wru', isEventWrite);
  const logWindows = per((t) => t.logWindows);
  goals.row(
    'AWS requests per turn ≤ 1/10 of per-token',
    fmt(switchboard.calls),
    fmt(perToken.calls / 10),
    fmt(requestRatio, 3),
    verdict(requestRatio, 0.1),
  );
  // A run drains its stream twice before a window's time is up: before it stores the answer (the
  // log must still be its own) and at its end. Each writes what was gathered: up to two writes more
  // per run than the windows of the emits' clock.
  const eventWrites = sumOf('calls', isEventWrite);
  const drains = 2 * (TURN_SHAPE.approval ? 2 : 1);
  goals.row(
    'event-log writes per turn ≤ 1 per flush window + 2 per run (its drains)',
    fmt(eventWrites),
    fmt(logWindows + drains),
    fmt(eventWrites / (logWindows + drains), 2),
    verdict(eventWrites, logWindows + drains),
  );
  goals.row(
    'event-log WRU per write ≤ 1.25 (small writes; events over 1 KB need more in any design)',
    fmt(eventWru / eventWrites, 2),
    '1.25',
    fmt(eventWru / eventWrites / 1.25, 2),
    verdict(eventWru / eventWrites, 1.25),
  );
  goals.row(
    'cost per million turns ≤ 1.5 × floor',
    usd(cost.switchboard.total),
    usd(1.5 * cost.floor.total),
    fmt(cost.switchboard.total / cost.floor.total, 2),
    verdict(cost.switchboard.total, 1.5 * cost.floor.total),
  );
  goals.row(
    "a run's first chunk p50 ≤ one event-log write + one post + 5 ms",
    `${fmt(firstP50)} ms`,
    `${fmt(firstTarget)} ms`,
    fmt(firstP50 / firstTarget, 2),
    verdict(firstP50, firstTarget),
  );
  goals.row(
    `chunk latency p50 ≤ coalesceMs / 2 + 2 × bare post p50 (p99 ${fmt(p99)} ms)`,
    `${fmt(p50)} ms`,
    `${fmt(latencyTarget)} ms`,
    fmt(p50 / latencyTarget, 2),
    verdict(p50, latencyTarget),
  );
}

// Cancel
const cancel = await cancels(CANCELS);
const cancelP99 = quantile(cancel.latencies, 0.99);
const pollMs = parseSettings(undefined).runs.cancelPollMs;
table.section(
  `Cancel: an agent waiting on its backend, emitting nothing; ${CANCELS} runs, runs.cancelPollMs ${pollMs}`,
);
table.row(
  'cancel request → agent sees the abort, p50 / p99 (ms)',
  `${fmt(quantile(cancel.latencies, 0.5))} / ${fmt(cancelP99)}`,
  '',
  '1000 (p99)',
  fmt(cancelP99 / 1000, 2),
  '',
);
table.row(
  'reads while waiting: run polls per s, RRU per s',
  `${fmt(cancel.runPolls / cancel.waitingSeconds, 2)}, ${fmt(cancel.runPollRru / cancel.waitingSeconds, 2)}`,
  '',
  '',
  '',
  '',
);
table.row(
  '  their cost per million turns waiting 1 s',
  usd((cancel.runPollRru / cancel.waitingSeconds) * PRICES.dynamodb.perMillionRru),
  '',
  '',
  '',
  '',
);
table.row(
  'run-item reads / lease renewals in the phase / failed cancels',
  `${cancel.phaseRunReads} / ${cancel.leaseRenews} / ${cancel.failures}`,
  '',
  '',
  '',
  '',
);
goals.row(
  'cancel p99 < 1 s (reads counted above and in the bill)',
  `${fmt(cancelP99)} ms`,
  '1000 ms',
  fmt(cancelP99 / 1000, 2),
  verdict(cancelP99, 1000, '<'),
);

meterOf.stop();
await sandbox.close();

if (!ONLY_CANCEL) {
  // Bundles
  const bundleRows = await measureBundles(SMOKE ? { runs: 1, functions: ['http'] } : {});
  table.section(
    'Lambda bundles (bench/bundles.ts): entry + lazy KB, cold import ms vs an empty Node process',
  );
  for (const b of bundleRows) {
    table.row(
      `${b.fn}: entry / lazy KB, rss MB`,
      `${fmt(b.entryBytes / 1024)} / ${fmt(b.lazyBytes / 1024)}, ${fmt(b.rssMb)}`,
      '',
      '500 KB',
      fmt(b.entryBytes / 1024 / 500, 2),
      '',
    );
    table.row(
      `${b.fn}: cold import ms`,
      fmt(b.importMs),
      '',
      `${fmt(2 * b.emptyMs)} (2 × empty node ${fmt(b.emptyMs)})`,
      fmt(b.importMs / (2 * b.emptyMs), 2),
      '',
    );
    if (b.firstRequestMs !== undefined) {
      // No goal: the import and the first invocation together, what a cold start is on Lambda.
      table.row(
        `${b.fn}: import + first request ms (a session read, local table)`,
        fmt(b.firstRequestMs),
        '',
        '',
        '',
        '',
      );
    }
    goals.row(
      `bundle ${b.fn} < 500 KB minified`,
      `${fmt(b.entryBytes / 1024)} KB`,
      '500 KB',
      fmt(b.entryBytes / 1024 / 500, 2),
      verdict(b.entryBytes, 500 * 1024, '<'),
    );
    goals.row(
      `bundle ${b.fn} cold import < 2 × empty node`,
      `${fmt(b.importMs)} ms`,
      `${fmt(2 * b.emptyMs)} ms`,
      fmt(b.importMs / (2 * b.emptyMs), 2),
      verdict(b.importMs, 2 * b.emptyMs, '<'),
    );
  }

  // 200 sessions, after one alone: the runtime's CPU per turn of each, and the latencies.
  const one = await manySessions(1, MANY_DEADLINE_MS);
  const many = await manySessions(SESSIONS, MANY_DEADLINE_MS);
  const manyP99 = quantile(many.latencies, 0.99);
  const runtimePerTurn = (r: ManyResult) => r.cpu.runtime / Math.max(1, r.completed);
  const cpuRatio = runtimePerTurn(many) / runtimePerTurn(one);
  const share = (r: ManyResult, owner: CpuOwner) => `${fmt((100 * r.cpu[owner]) / r.cpu.total, 0)}%`;
  table.section(
    `${SESSIONS} sessions at once, ${MANY_CHUNKS} chunks each at 50/s, 1 connection each, on a sandbox of their own; ` +
      `deadline ${MANY_DEADLINE_MS / 1000} s${many.cutShort ? ' (cut short: what had not arrived counts as lost, its latency as ∞)' : ''}`,
  );
  table.row(
    'completed / lost / duplicated / out of order / with gaps',
    `${many.completed} / ${many.lost} / ${many.duplicated} / ${many.outOfOrder} / ${many.gaps}`,
    '',
    `${SESSIONS} / 0 / 0 / 0 / 0`,
    '',
    '',
  );
  table.row(
    'latency p50 / p99 (ms)',
    `${fmt(quantile(many.latencies, 0.5))} / ${fmt(manyP99)}`,
    '',
    `${fmt(10 * singleP99)} (10 × single p99)`,
    fmt(manyP99 / singleP99, 2),
    '',
  );
  table.row(
    'wall time from release to the last end (s) / AWS requests',
    `${fmt(many.wallMs / 1000)} / ${many.calls}`,
    '',
    '',
    '',
    '',
  );
  table.row(
    "this process's CPU, ms: Switchboard's code / the emulators / the bench / Node (GC, I/O)",
    `${fmt(many.cpu.runtime, 0)} / ${fmt(many.cpu.sandbox, 0)} / ${fmt(many.cpu.bench, 0)} / ${fmt(many.cpu.other, 0)}`,
    '',
    `${share(many, 'runtime')} / ${share(many, 'sandbox')} / ${share(many, 'bench')} / ${share(many, 'other')}`,
    '',
    '',
  );
  table.row(
    "Switchboard's CPU per turn, ms: one session alone / each of the many",
    `${fmt(runtimePerTurn(one))} / ${fmt(runtimePerTurn(many))}`,
    '',
    '1.5 × one alone',
    fmt(cpuRatio, 2),
    '',
  );

  const faults = many.lost + many.duplicated + many.outOfOrder + many.gaps + (SESSIONS - many.completed);
  goals.row(
    `${SESSIONS} sessions: nothing lost, duplicated or out of order`,
    `${many.lost} chunks lost, ${many.duplicated} dup., ${many.outOfOrder} out of order, ${SESSIONS - many.completed} unfinished`,
    '0',
    '',
    verdict(faults, 0),
  );
  goals.row(
    `${SESSIONS} sessions: Switchboard's CPU per turn ≤ 1.5 × one session's`,
    `${fmt(runtimePerTurn(many))} ms`,
    `${fmt(1.5 * runtimePerTurn(one))} ms`,
    fmt(cpuRatio, 2),
    verdict(cpuRatio, 1.5),
  );
  goals.row(
    `${SESSIONS} sessions: p99 ≤ 10 × single-session p99 (the emulators' CPU: ${share(many, 'sandbox')})`,
    `${fmt(manyP99)} ms`,
    `${fmt(10 * singleP99)} ms`,
    fmt(manyP99 / singleP99, 2),
    verdict(manyP99, 10 * singleP99),
  );
}

console.log(table.toString());
console.log('\n== Goals ==');
console.log(goals.toString());
console.log(`\nbench took ${fmt((performance.now() - benchStarted) / 1000)} s`);
// A 200-session run cut short leaves its sandbox working on the backlog: the exit ends it.
process.exit(0);
