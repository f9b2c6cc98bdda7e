import type { UIMessageChunk } from 'ai';
import type { Session, SwitchboardEvent } from '../client/index.ts';
import type { ChunkMapper } from './chunks.ts';

/** The events of a session a stream reads: those queued, and a wait for the next. */
export interface Source {
  queue: SwitchboardEvent[];
  /** Stops listening (and wakes a waiting read, which then finds the stream done). */
  stop(): void;
  wait(): Promise<void>;
}

/** Which events a stream follows and where it ends. */
export interface Follow {
  /** Whether the event belongs to the stream (events of other runs are left out). */
  accepts(event: SwitchboardEvent): boolean;
  /** Whether the event ends the stream (a turn end of the last run it follows). */
  ends(event: SwitchboardEvent): boolean;
}

/** The session's events from now on, after `earlier` (those already delivered), in seq order. */
export function subscribe(session: Session, earlier: readonly SwitchboardEvent[]): Source {
  const queue = [...earlier];
  let wake: (() => void) | undefined;
  const unsubscribe = session.on('*', (event) => {
    queue.push(event);
    wake?.();
  });
  return {
    queue,
    stop: () => {
      unsubscribe();
      wake?.();
    },
    wait: () => new Promise<void>((resolve) => (wake = resolve)),
  };
}

/**
 * The chunks of the followed events, until the end event; an abort stops the turn. While it runs, the
 * stream's end is in `open`, so that the transport's `close()` can end it.
 */
export function chunkStream(
  source: Source,
  follow: Follow,
  mapper: ChunkMapper,
  open: Set<() => void>,
  abortSignal: AbortSignal | undefined,
  cancelTurn: () => void,
): ReadableStream<UIMessageChunk> {
  let done = false;
  const finish = () => {
    done = true;
    open.delete(finish);
    source.stop();
  };
  open.add(finish);
  const onAbort = () => {
    if (done) return;
    finish();
    cancelTurn();
  };
  abortSignal?.addEventListener('abort', onAbort, { once: true });
  return new ReadableStream<UIMessageChunk>({
    pull: async (controller) => {
      for (;;) {
        if (done) {
          controller.close();
          return;
        }
        const event = source.queue.shift();
        if (!event) {
          await source.wait();
          continue;
        }
        if (!follow.accepts(event)) continue;
        const last = follow.ends(event);
        const chunks = mapper.map(event, last);
        for (const chunk of chunks) controller.enqueue(chunk);
        if (last || event.type === 'session.deleted') {
          finish();
          abortSignal?.removeEventListener('abort', onAbort);
          controller.close();
          return;
        }
        if (chunks.length > 0) return;
      }
    },
    cancel: () => {
      finish();
      abortSignal?.removeEventListener('abort', onAbort);
    },
  });
}
