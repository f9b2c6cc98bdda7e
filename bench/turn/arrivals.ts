import { performance } from 'node:perf_hooks';
import { chunksIn, type EmitRecord } from '../support/agents.ts';
import type { TestSocket } from '../support/ws-client.ts';

/** An event as a host received it, with when. */
export interface Arrival {
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
export function recordArrivals(socket: TestSocket): { arrivals: Arrival[]; frames: () => number } {
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
export function chunkLatencies(
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
export function distinctEvents(arrivals: Arrival[]): Arrival[] {
  const bySeq = new Map<number, Arrival>();
  for (const a of arrivals) if (!bySeq.has(a.seq)) bySeq.set(a.seq, a);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
