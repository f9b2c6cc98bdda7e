import type { Runtime } from '../config/index.ts';
import { type SessionEvent, type Subscriber, subscribers } from '../store/index.ts';
import { type EventFrame, forgetConnection, framesOf, pushFrames } from './push.ts';

/**
 * The connections a turn streams to, kept off the per-event path: the session's subscribers are
 * read (one strongly consistent Query) when the run starts, while its agent starts ({@link prefetch}),
 * then at most every `stream.subscriberRefreshMs`, and once more when the turn drains.
 *
 * Why a connection that joins mid-turn misses nothing: it subscribes, then replays the log. If the
 * read that first finds it is read r, it subscribed after read r − 1 was made, so its replay holds
 * every event stored before read r − 1. The audience keeps the events stored since the last read
 * and sends them to a connection it finds new, before anything later: those after the seq its join
 * recorded as replayed, or all of them when the join has not recorded it yet (hosts drop a seq they
 * have already seen, so that overlap with the replay is harmless).
 *
 * Each connection has its own queue of posts, so frames reach it in seq order and a slow
 * connection delays no other, nor the writer.
 */
/** How often the read of the connections at a turn's end is tried. */
const FINAL_READ_ATTEMPTS = 3;

export class Audience {
  /** Per connection: what waits to be posted, and whether a post to it is in flight. */
  readonly #queues = new Map<string, Queue>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #gone = new Set<string>();
  /** Events stored since the last read of the subscribers: what a connection found new is sent. */
  #sinceRead: SessionEvent[] = [];
  #readAt = Number.NEGATIVE_INFINITY;
  /** The read made before anything was stored ({@link prefetch}), until the first delivery applies it. */
  #ahead: { read: Promise<Subscriber[] | undefined>; at: number } | undefined;

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
    const ahead = this.#ahead;
    this.#ahead = undefined;
    let found = ahead && (await ahead.read);
    // What a read made before this window was stored missed stays kept for the next read.
    const keep = found !== undefined;
    if (ahead && found) this.#readAt = ahead.at;
    const due =
      this.rt.clock() - this.#readAt >= this.rt.settings.stream.subscriberRefreshMs ||
      (final && this.#sinceRead.length > 0);
    if (!found && due) {
      found = await this.#readSubscribers(final ? FINAL_READ_ATTEMPTS : 1);
      if (found) this.#readAt = this.rt.clock();
    }
    let joined: Subscriber[] = [];
    let catchUp: SessionEvent[] = [];
    if (found) {
      const listed = new Set(found.map((s) => s.connectionId));
      // A connection that left has no subscriber record any more: nothing more is sent to it.
      for (const id of this.#queues.keys()) if (!listed.has(id)) this.#queues.delete(id);
      joined = found.filter((s) => !this.#queues.has(s.connectionId) && !this.#gone.has(s.connectionId));
      catchUp = this.#sinceRead;
      if (!keep) this.#sinceRead = [];
    }
    if (events.length > 0) {
      const outgoing = { events, frames: framesOf(events) };
      for (const id of this.#queues.keys()) this.#post(id, outgoing);
    }
    const whole = { events: catchUp, frames: framesOf(catchUp) };
    for (const { connectionId, replayedThrough } of joined) {
      this.#queues.set(connectionId, { waiting: [], busy: false });
      // What its replay sent is not sent again (when the join recorded it before this read).
      const missed = replayedThrough === undefined ? catchUp : catchUp.filter((e) => e.seq > replayedThrough);
      if (missed.length === catchUp.length && missed.length > 0) this.#post(connectionId, whole);
      else if (missed.length > 0) this.#post(connectionId, { events: missed, frames: framesOf(missed) });
    }
  }

  /**
   * Reads the session's connections now, before anything is stored, so that the first window is
   * sent as soon as it is stored instead of after a read. A connection that subscribes after this
   * read is found by the next one, and the events stored since this read was made (all of them) are
   * kept for it until then.
   */
  prefetch(): void {
    if (this.#ahead || this.#readAt !== Number.NEGATIVE_INFINITY) return;
    this.#ahead = { read: this.#readSubscribers(1), at: this.rt.clock() };
  }

  /**
   * The session's connections, or undefined when they could not be read. The read at a turn's end
   * is tried again: it is the last chance for a connection that joined late to get the turn's end.
   */
  async #readSubscribers(attempts: number): Promise<Subscriber[] | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await subscribers(this.rt, this.sessionId);
      } catch (error) {
        this.rt.logger.warn('Could not read the session’s connections', { attempt, error: String(error) });
        if (attempt >= attempts) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  /** Waits until every frame queued so far was posted (or given up on). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /**
   * Queues events for one connection. While a post to it is in flight, what is queued waits and
   * then goes as one post: a slow connection gets fewer, larger frames, never a backlog of small ones.
   */
  #post(connectionId: string, outgoing: Outgoing): void {
    const queue = this.#queues.get(connectionId);
    if (!queue) return;
    queue.waiting.push(outgoing);
    if (queue.busy) return;
    queue.busy = true;
    const run = this.#send(connectionId, queue).finally(() => this.#inFlight.delete(run));
    this.#inFlight.add(run);
  }

  /** Posts what waits for one connection until nothing does; clears `busy` in the same turn it finds the queue empty. */
  async #send(connectionId: string, queue: Queue): Promise<void> {
    try {
      while (queue.waiting.length > 0 && !this.#gone.has(connectionId)) {
        const batch = queue.waiting;
        queue.waiting = [];
        const frames =
          batch.length === 1 ? (batch[0] as Outgoing).frames : framesOf(batch.flatMap((o) => o.events));
        if ((await pushFrames(this.rt, connectionId, frames)).outcome !== 'gone') continue;
        this.#gone.add(connectionId);
        this.#queues.delete(connectionId);
        await forgetConnection(this.rt, connectionId, this.sessionId);
      }
    } catch (error) {
      this.rt.logger.warn('Could not send events live', { connectionId, error: String(error) });
    } finally {
      queue.busy = false;
    }
  }
}

/** One connection's posts: what waits, and whether a post is in flight. */
interface Queue {
  waiting: Outgoing[];
  busy: boolean;
}

/** Events to send, and their frames, encoded once for every connection that gets them as they are. */
interface Outgoing {
  events: SessionEvent[];
  frames: EventFrame[];
}
