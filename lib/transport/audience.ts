import type { Runtime } from '../config/index.ts';
import { type SessionEvent, type Subscriber, subscribers } from '../store/index.ts';
import { forgetConnection, framesOf, pushFrames } from './push.ts';

/**
 * The connections a turn streams to, kept off the per-event path: the session's subscribers are
 * read (one strongly consistent Query) after the first window is stored, then at most every
 * `stream.subscriberRefreshMs`, and once more when the turn drains.
 *
 * Why a connection that joins mid-turn misses nothing: it subscribes, then replays the log. If the
 * read that first finds it is read r, it subscribed after read r − 1 was made, so its replay holds
 * every event stored before read r − 1. The audience keeps the events stored since the last read
 * and sends them to a connection it finds new, before anything later: those after the seq its join
 * recorded as replayed, or all of them when the join has not recorded it yet (hosts drop a seq they
 * have already seen, so that overlap with the replay is harmless).
 *
 * Each connection has its own chain of posts, so frames reach it in seq order and a slow
 * connection delays no other, nor the writer.
 */
export class Audience {
  readonly #chains = new Map<string, Promise<void>>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #gone = new Set<string>();
  /** Events stored since the last read of the subscribers: what a connection found new is sent. */
  #sinceRead: SessionEvent[] = [];
  #readAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly rt: Runtime,
    private readonly sessionId: string,
  ) {}

  /**
   * Sends a stored window's events to every connection; reads the subscribers first when that is
   * due (or, with `final`, when anything was stored since the last read). Returns once the posts are
   * queued, not delivered: {@link idle} waits for them.
   */
  async deliver(events: SessionEvent[], final: boolean): Promise<void> {
    this.#sinceRead.push(...events);
    const due =
      Date.now() - this.#readAt >= this.rt.settings.stream.subscriberRefreshMs ||
      (final && this.#sinceRead.length > 0);
    let joined: Subscriber[] = [];
    let catchUp: SessionEvent[] = [];
    if (due) {
      const found = await subscribers(this.rt, this.sessionId).catch((error: unknown) => {
        this.rt.logger.warn('Could not read the session’s connections', { error: String(error) });
        return undefined;
      });
      if (found) {
        this.#readAt = Date.now();
        const listed = new Set(found.map((s) => s.connectionId));
        // A connection that left has no subscriber record any more: nothing more is sent to it.
        for (const id of this.#chains.keys()) if (!listed.has(id)) this.#chains.delete(id);
        joined = found.filter((s) => !this.#chains.has(s.connectionId) && !this.#gone.has(s.connectionId));
        catchUp = this.#sinceRead;
        this.#sinceRead = [];
      }
    }
    const frames = framesOf(events);
    if (frames.length > 0) for (const id of this.#chains.keys()) this.#post(id, frames);
    const catchUpFrames = framesOf(catchUp);
    for (const { connectionId, replayedThrough } of joined) {
      this.#chains.set(connectionId, Promise.resolve());
      // What its replay sent is not sent again (when the join recorded it before this read).
      const missed =
        replayedThrough === undefined
          ? catchUpFrames
          : framesOf(catchUp.filter((e) => e.seq > replayedThrough));
      if (missed.length > 0) this.#post(connectionId, missed);
    }
  }

  /** Waits until every frame queued so far was posted (or given up on). */
  async idle(): Promise<void> {
    await Promise.all(this.#inFlight);
  }

  #post(connectionId: string, frames: Uint8Array[]): void {
    const previous = this.#chains.get(connectionId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        if (this.#gone.has(connectionId)) return;
        if ((await pushFrames(this.rt, connectionId, frames)) !== 'gone') return;
        this.#gone.add(connectionId);
        this.#chains.delete(connectionId);
        await forgetConnection(this.rt, connectionId, this.sessionId);
      })
      .catch((error: unknown) =>
        this.rt.logger.warn('Could not send events live', { connectionId, error: String(error) }),
      );
    if (this.#chains.has(connectionId)) this.#chains.set(connectionId, next);
    this.#inFlight.add(next);
    void next.finally(() => this.#inFlight.delete(next));
  }
}
