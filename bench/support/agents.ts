/**
 * The agents the bench and the event-path test run: a paced one that streams a standard turn (text
 * chunks at a model's pace, backend tool calls, an approval, more chunks after it) and records when
 * it emitted what, and an idle one that waits on its backend until the turn is cancelled.
 */
import { performance } from 'node:perf_hooks';
import { pause } from '../../demo/demo-agent.ts';
import { hostSessionId } from '../../lib/auth/index.ts';
import type { HostAgentDefinition, HostAgentIO } from '../../lib/contract/index.ts';

/** What one paced turn streams. The message sent to the paced agent is this, as JSON. */
export interface TurnShape {
  /** Text chunks before the approval. */
  before: number;
  /** Text chunks after it (in the answer's run); 0 with no approval. */
  after: number;
  /** Milliseconds between two chunks: 20 is 50 chunks/s, a model's pace. */
  intervalMs: number;
  /** Backend tool calls (a tool_use, then its tool_result one interval later), spread over the chunks. */
  toolCalls: number;
  /** Whether the turn ends asking for one approval (answered by the caller with `approve`). */
  approval: boolean;
}

/** The standard turn of the issue: 500 chunks at 50 chunks/s, 2 tool calls, 1 approval, 50 chunks more. */
export const STANDARD_TURN: TurnShape = {
  before: 500,
  after: 50,
  intervalMs: 20,
  toolCalls: 2,
  approval: true,
};

/** The id of the approval a paced turn asks for. */
export const APPROVAL_ID = 'approve_report';

/** The text of chunk `i` of a segment: unique within a turn, so a received delta names its chunks. */
export const chunkText = (segment: 'a' | 'b', i: number) => `${segment}${i} `;

/** The chunks a delta's text carries, in order (`a12`, `b3`, …). */
export function chunksIn(text: string): string[] {
  return [...text.matchAll(/([ab]\d+) /g)].map((m) => `${m[1]} `);
}

/** The whole text a turn of `shape` streams, in order. */
export function expectedText(shape: TurnShape): string {
  const seg = (s: 'a' | 'b', n: number) => Array.from({ length: n }, (_, i) => chunkText(s, i)).join('');
  return seg('a', shape.before) + (shape.approval ? seg('b', shape.after) : '');
}

/** What a session's paced turns emitted: each chunk's text with its `performance.now()`, and every emit's time. */
export interface EmitRecord {
  chunks: Map<string, number>;
  /** Every emit (chunks and tool events), in order. */
  emits: number[];
}

/**
 * The paced agent (id `paced`) and what it recorded. Each turn waits, before its first emit, until
 * the caller lets its session go (`release`), so that every connection has joined first; the
 * answer's run streams at once.
 */
export function pacedAgent(id = 'paced') {
  const records = new Map<string, EmitRecord>();
  const shapes = new Map<string, TurnShape>();
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  const gateOf = (sessionId: string) => {
    let entry = gates.get(sessionId);
    if (!entry) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      entry = { promise, open };
      gates.set(sessionId, entry);
    }
    return entry;
  };
  const recordOf = (sessionId: string) => {
    let record = records.get(sessionId);
    if (!record) {
      record = { chunks: new Map(), emits: [] };
      records.set(sessionId, record);
    }
    return record;
  };

  /** Streams chunks `segment`0…n-1 at the shape's pace, with its tool calls spread among them. */
  async function stream(
    sessionId: string,
    segment: 'a' | 'b',
    count: number,
    shape: TurnShape,
    tools: number,
    { emit, signal }: HostAgentIO,
  ): Promise<void> {
    const record = recordOf(sessionId);
    const toolAt = new Set(
      Array.from({ length: tools }, (_, k) => Math.floor(((k + 1) * count) / (tools + 1))),
    );
    const start = performance.now();
    let slot = 0;
    // A fixed schedule (start + slot × interval), so the pace does not drift with timer lateness.
    const next = () => pause(start + slot * shape.intervalMs - performance.now(), signal);
    for (let i = 0; i < count && !signal.aborted; i += 1) {
      if (toolAt.has(i)) {
        const toolId = `lookup_${segment}${i}`;
        record.emits.push(performance.now());
        emit({ type: 'tool_use', id: toolId, name: 'lookup', args: { query: `chunk ${i}` } });
        slot += 1;
        await next();
        record.emits.push(performance.now());
        emit({ type: 'tool_result', id: toolId, name: 'lookup', result: { found: i } });
        slot += 1;
        await next();
      }
      const text = chunkText(segment, i);
      const at = performance.now();
      record.chunks.set(text, at);
      record.emits.push(at);
      emit({ type: 'text', text });
      slot += 1;
      await next();
    }
  }

  const definition: HostAgentDefinition = {
    info: { id, name: 'Paced bench agent', capabilities: { streaming: true } },
    async invoke({ message, conversationId }, io) {
      const sessionId = hostSessionId(conversationId);
      const shape = JSON.parse(message) as TurnShape;
      shapes.set(sessionId, shape);
      await gateOf(sessionId).promise;
      await stream(sessionId, 'a', shape.before, shape, shape.toolCalls, io);
      if (!shape.approval || io.signal.aborted) return {};
      return {
        pendingActions: [
          {
            id: APPROVAL_ID,
            type: 'tool_approval',
            toolName: 'send_report',
            title: 'Send the report?',
            args: { to: 'team' },
          },
        ],
      };
    },
    async resolveAction({ conversationId }, io) {
      const sessionId = hostSessionId(conversationId);
      const shape = shapes.get(sessionId);
      if (shape) await stream(sessionId, 'b', shape.after, shape, 0, io);
      return {};
    },
  };

  return {
    definition,
    /** Lets the session's turn start streaming. */
    release: (sessionId: string) => gateOf(sessionId).open(),
    /** What the session's turns emitted so far. */
    recordOf,
    /** Forgets a session's record (a bench that reuses nothing keeps memory flat). */
    forget: (sessionId: string) => {
      records.delete(sessionId);
      shapes.delete(sessionId);
      gates.delete(sessionId);
    },
  };
}

/**
 * An agent (id `idle`) that emits nothing and waits on its backend, a promise that settles when the
 * turn's signal aborts; it records when it started waiting and when it saw the abort.
 */
export function idleAgent(id = 'idle') {
  const started = new Map<string, number>();
  const aborted = new Map<string, number>();
  const waiters = new Map<string, (at: number) => void>();
  const startWaiters = new Map<string, () => void>();
  const definition: HostAgentDefinition = {
    info: { id, name: 'Idle bench agent' },
    async invoke({ conversationId }, { signal }) {
      const sessionId = hostSessionId(conversationId);
      started.set(sessionId, performance.now());
      startWaiters.get(sessionId)?.();
      // The backend: a call that only ends when it is told to stop.
      await new Promise<void>((resolve) => {
        const stop = () => {
          const at = performance.now();
          aborted.set(sessionId, at);
          waiters.get(sessionId)?.(at);
          resolve();
        };
        if (signal.aborted) stop();
        else signal.addEventListener('abort', stop, { once: true });
      });
      return { status: 'cancelled', stopReason: 'cancelled' };
    },
  };
  return {
    definition,
    /** Resolves with `performance.now()` of the agent starting to wait in the session. */
    started: (sessionId: string): Promise<number> => {
      const at = started.get(sessionId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) =>
        startWaiters.set(sessionId, () => resolve(started.get(sessionId) ?? 0)),
      );
    },
    /** Resolves with `performance.now()` of the agent seeing its signal abort. */
    aborted: (sessionId: string): Promise<number> => {
      const at = aborted.get(sessionId);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => waiters.set(sessionId, resolve));
    },
  };
}
