import type { Runtime } from '../config/index.ts';
import { SessionNotFoundError } from '../errors/index.ts';
import { END_TYPES } from '../runs/index.ts';
import { getSession, lastSeq, listEvents, listRuns, type SessionEvent } from '../store/index.ts';

/** How {@link tailSession} follows a log. */
export interface TailOptions {
  /** Start after this seq (0: the whole log). Default: the log's end when the tail starts, so only new events show. */
  after?: number;
  /** How often the log is read again. Default 500 ms. */
  pollMs?: number;
  /**
   * Stop once a turn ends after the log's end at the start (its idle or requires-action event),
   * instead of following until `signal`: turns that ended before are shown, not waited for. When no
   * run is queued or running at the start, the last turn has already ended: the tail stops at the
   * log's end.
   */
  untilTurnEnds?: boolean;
  /** Stops the tail. */
  signal?: AbortSignal;
  /** Called with each event, in order. */
  onEvent: (event: SessionEvent) => void;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Follows a session's event log as it grows, reading it the way a host that reconnects does (from
 * the table, so it needs no WebSocket and sees every turn, whichever worker runs it). Returns the
 * last seq it saw.
 */
export async function tailSession(rt: Runtime, ref: string, options: TailOptions): Promise<number> {
  if (!(await getSession(rt, ref, { includeDeleted: true }))) throw new SessionNotFoundError(ref);
  // The log's end first, then the runs: a turn running at the second read writes its end after the
  // first, so it is waited for; one that ended between them wrote its end before the log is read.
  const end = await lastSeq(rt, ref);
  const open =
    options.untilTurnEnds &&
    (await listRuns(rt, ref)).some((run) => run.status === 'queued' || run.status === 'running');
  let after = options.after ?? end;
  const pollMs = options.pollMs ?? 500;
  while (!options.signal?.aborted) {
    const events = await listEvents(rt, ref, after, 500);
    for (const event of events) {
      options.onEvent(event);
      after = event.seq;
      if (options.untilTurnEnds && event.seq > end && END_TYPES.has(event.type)) return after;
    }
    // Nothing was running: the backlog up to the end read at the start is all there is to wait for.
    if (options.untilTurnEnds && !open && after >= end) return after;
    if (events.length < 500) await pause(pollMs, options.signal);
  }
  return after;
}

/** One line for a person: seq, time, type, run, and what the event says in brief. */
export function describeEvent(event: SessionEvent): string {
  const data = event.data;
  const brief =
    typeof data.text === 'string'
      ? JSON.stringify(data.text)
      : typeof data.content === 'string'
        ? JSON.stringify(data.content)
        : typeof data.status === 'string'
          ? `status=${data.status}${typeof data.stop_reason === 'string' ? ` stop_reason=${data.stop_reason}` : ''}`
          : JSON.stringify(data);
  const text = brief.length > 200 ? `${brief.slice(0, 199)}…` : brief;
  return `#${event.seq} ${event.at} ${event.type}${event.run_id ? ` ${event.run_id}` : ''} ${text}`;
}
