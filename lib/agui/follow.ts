import type { Runtime } from '../config/index.ts';
import { listEvents, openActions } from '../store/index.ts';
import type { Followed } from './accept.ts';
import type { AguiTranslator, RunEnd } from './translate.ts';
import type { AguiEvent, ResponseSink } from './types.ts';

/** One AG-UI event as a server-sent event: AG-UI's SSE framing is a `data:` line of JSON per event. */
export function sseOf(event: AguiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/** Options of {@link followRun}. */
export interface FollowOptions {
  /** How often the log is read while nothing new is in it. */
  pollMs: number;
  /** When the stream must stop (the function's timeout, less a margin), by the runtime's clock: the client then posts the run again. */
  deadline: number;
}

/**
 * Streams the followed runs from the session's log, the same log a WebSocket host replays, until the
 * last of them ends: their events as AG-UI events, then `RUN_FINISHED` (or `RUN_ERROR`). Reading the
 * log rather than listening to the worker is what makes a stream resumable: everything a run did is
 * there, in order, whoever reads it and whenever.
 */
export async function followRun(
  rt: Runtime,
  followed: Followed,
  translator: AguiTranslator,
  sink: ResponseSink,
  options: FollowOptions,
): Promise<void> {
  const send = (events: AguiEvent[]) => {
    for (const event of events) if (!sink.closed) sink.write(sseOf(event));
  };
  send([translator.started()]);
  const remaining = new Set(followed.runIds);
  let after = followed.after;
  let end: RunEnd;
  while (!sink.closed) {
    const events = await listEvents(rt, followed.ref, after, 500);
    for (const event of events) {
      after = event.seq;
      const ours =
        event.type === 'session.deleted' || (event.run_id !== undefined && remaining.has(event.run_id));
      if (!ours) continue;
      const step = translator.translate(event);
      send(step.events);
      if (!step.end) continue;
      end = step.end;
      if (end.runId && event.type !== 'session.deleted') remaining.delete(end.runId);
      else remaining.clear();
      if (remaining.size > 0) continue;
      const open = end.waits ? await openActions(rt, followed.ref) : [];
      const requests = open
        .filter((a) => a.kind !== 'host_tool' && a.status === 'pending')
        .map((a) => ({ id: a.actionId, kind: a.kind, action: a.action, expiresAt: a.expiresAt }));
      send(translator.finish(requests));
      return;
    }
    if (rt.clock() >= options.deadline) {
      send(
        translator.interrupted(
          'stream_timeout',
          'The stream reached its time limit before the run ended; post the same run (same runId) again to go on.',
        ),
      );
      return;
    }
    // A full page: read on at once. Anything less is the end of the log for now: wait one poll.
    if (events.length === 500) continue;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
