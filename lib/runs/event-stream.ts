import type { Runtime } from '../config/index.ts';
import { FencedError } from '../errors/index.ts';
import type { SessionEventData, SessionEventType } from '../events/log.ts';
import { appendEvents, type SessionEvent } from '../store/index.ts';
import { Audience } from '../transport/index.ts';

/** Events the runtime writes about a turn (its status, the user's message, the answer it runs on), not the agent's. */
const RUNTIME_EVENT = /^(session|user|messages)\.|^action\.resolved$/;

/**
 * One turn's writer of the session's event log, one flush window at a time. The agent's first event
 * of a run, and any after `stream.coalesceMs` of its silence, is stored and sent at once: a person
 * sees the answer start as soon as the agent produced it. The events that follow within the window
 * (`stream.coalesceMs`, from the first of them) are stored as one item, then sent to each connection
 * as one frame. Text within a window that belongs to one message becomes one delta event. A window
 * is sent only once it is stored, so a host never sees an event the log could lose in a crash.
 * Stores follow one another (the next waits for the one before, which may be a fence), and windows
 * that close meanwhile are stored together; posts run beside them, one queue per connection, so a
 * slow post stalls neither the log nor other hosts.
 */
export class EventStream {
  #seq: number;
  #window: SessionEvent[] = [];
  #text = '';
  #textMessageId = '';
  #timer: NodeJS.Timeout | undefined;
  /** Closed windows waiting for the store in flight; they are stored together when it ends. */
  #ready: SessionEvent[] = [];
  #readyFinal = false;
  #storing: Promise<void> | undefined;
  #failure: unknown;
  readonly #audience: Audience;
  /** This writer, in its items' marks and blob keys: a retry of its own put is told from a rival's. */
  readonly #writer = crypto.randomUUID();
  #firstEventAt: number | undefined;
  /** When the agent's last event was gathered: one after a quiet window is sent at once. */
  #lastAgentEventAt: number | undefined;

  constructor(
    private readonly rt: Runtime,
    private readonly sessionId: string,
    private readonly runId: string,
    lastSeq: number,
    private readonly onFenced: () => void = () => {},
  ) {
    this.#seq = lastSeq;
    this.#audience = new Audience(rt, sessionId);
    // Who to send to is read while the agent starts, so that its first event waits for no read.
    this.#audience.prefetch();
  }

  /** When the agent's first event (or piece of text) was gathered, in epoch ms; undefined before it. */
  get firstEventAt(): number | undefined {
    return this.#firstEventAt;
  }

  /** Adds a piece of the answer; it is stored and sent with the rest of its window. */
  text(messageId: string, text: string): void {
    if (text.length === 0) return;
    this.#firstEventAt ??= this.rt.clock();
    if (this.#text && messageId !== this.#textMessageId) this.#closeText();
    this.#textMessageId = messageId;
    this.#text += text;
    if (this.#text.length >= this.rt.settings.stream.maxDeltaChars) this.#closeText();
    this.#schedule(true);
  }

  /** Appends one event (after any text gathered before it), to be stored and sent with its window. */
  append<T extends SessionEventType>(type: T, data: SessionEventData<T>): void {
    this.#closeText();
    this.#push(type, data);
    this.#schedule(!RUNTIME_EVENT.test(type));
  }

  /**
   * Stores what was gathered and waits until everything so far is stored (not yet sent): the fence
   * check before a turn's answer is stored, which a slow connection must not hold up. Throws what
   * went wrong, if anything (a {@link FencedError} when another writer took the log).
   */
  async stored(): Promise<void> {
    this.#flush(true);
    while (this.#storing) await this.#storing;
    if (this.#failure) throw this.#failure;
  }

  /** Stores and sends what was gathered, then waits until everything so far is; throws what went wrong, if anything. */
  async drain(): Promise<void> {
    await this.stored().finally(() => this.#audience.idle());
  }

  /**
   * Gives up what was gathered and not yet stored, as a crash would: a turn that failed is closed
   * by a new writer, which this one must not race with a window its timer would store later.
   */
  abandon(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#text = '';
    this.#window = [];
    this.#ready = [];
  }

  /** The gathered text, as events of at most `stream.maxDeltaChars` characters. */
  #closeText(): void {
    const { maxDeltaChars } = this.rt.settings.stream;
    const text = this.#text;
    this.#text = '';
    for (let i = 0; i < text.length; i += maxDeltaChars) {
      this.#push('agent.message.delta', {
        message_id: this.#textMessageId,
        text: text.slice(i, i + maxDeltaChars),
      });
    }
  }

  #push(type: string, data: Record<string, unknown>): void {
    if (!RUNTIME_EVENT.test(type)) this.#firstEventAt ??= this.rt.clock();
    this.#seq += 1;
    this.#window.push({
      seq: this.#seq,
      type,
      session_id: this.sessionId,
      run_id: this.runId,
      at: new Date(this.rt.clock()).toISOString(),
      data,
    });
  }

  /**
   * Opens a window for what was just gathered, or sends it at once: the agent's event that follows
   * `coalesceMs` of its silence (its first of the run included) opens no window, so the answer's
   * start waits for one store and one post, not for a window. The runtime's own events (the turn's
   * status, the user's message) keep to windows and do not count as the agent's.
   */
  #schedule(byAgent: boolean): void {
    const { coalesceMs } = this.rt.settings.stream;
    let quiet = false;
    if (byAgent) {
      const now = this.rt.clock();
      quiet = this.#lastAgentEventAt === undefined || now - this.#lastAgentEventAt >= coalesceMs;
      this.#lastAgentEventAt = now;
    }
    // A window the runtime's events opened is sent with the agent's first event, not after it.
    if (coalesceMs === 0 || quiet) this.#flush(false);
    else this.#timer ??= setTimeout(() => this.#flush(false), coalesceMs);
  }

  #flush(final: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#closeText();
    this.#ready.push(...this.#window);
    this.#window = [];
    this.#readyFinal ||= final;
    // The loop runs at least once, so it clears #storing only after this assignment.
    if (!this.#storing && !this.#failure && (this.#ready.length > 0 || this.#readyFinal))
      this.#storing = this.#storeReady();
  }

  /**
   * Stores what is ready, one store at a time (the next may meet a fence the one before did not).
   * Windows that close while a store is in flight wait for it and are then stored as one: when
   * DynamoDB is slow, the stream makes fewer, larger writes instead of a queue of small ones.
   */
  async #storeReady(): Promise<void> {
    while ((this.#ready.length > 0 || this.#readyFinal) && !this.#failure) {
      const events = this.#ready;
      const final = this.#readyFinal;
      this.#ready = [];
      this.#readyFinal = false;
      await this.#store(events, final);
    }
    this.#storing = undefined;
  }

  async #store(window: SessionEvent[], final: boolean): Promise<void> {
    if (this.#failure) return;
    try {
      if (!(await appendEvents(this.rt, window, this.#writer)))
        throw new FencedError(window[0]?.seq ?? this.#seq);
    } catch (error) {
      this.#failure = error;
      if (error instanceof FencedError) this.onFenced();
      return;
    }
    // The window is in the log: a host that misses it live reads it back, so a failed send is not fatal.
    await this.#audience.deliver(window, final);
  }
}
