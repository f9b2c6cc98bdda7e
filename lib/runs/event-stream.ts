import type { Runtime } from '../config/index.ts';
import { FencedError } from '../errors/index.ts';
import { appendEvent, type SessionEvent } from '../store/index.ts';
import { broadcast } from '../transport/index.ts';

/**
 * One turn's writer of the session's event log. Events are stored first (a conditional put on the
 * next seq) and then sent to every joined connection, one at a time so that the socket sees the
 * log's order. Text deltas that arrive within `stream.coalesceMs` become one event; a non-text
 * event first flushes the text before it, so order is kept.
 */
export class EventStream {
  #seq: number;
  #tail: Promise<void> = Promise.resolve();
  #failure: unknown;
  #text = '';
  #textMessageId = '';
  #generation = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rt: Runtime,
    private readonly sessionId: string,
    private readonly runId: string,
    lastSeq: number,
    private readonly onFenced: () => void = () => {},
  ) {
    this.#seq = lastSeq;
  }

  /** The last seq written (or queued to be written). */
  get seq(): number {
    return this.#seq;
  }

  /** Adds a piece of the answer; it is sent with its neighbours within the coalescing window. */
  text(messageId: string, text: string): void {
    if (text.length === 0) return;
    if (this.#text && messageId !== this.#textMessageId) this.#flushText();
    this.#textMessageId = messageId;
    this.#text += text;
    const { coalesceMs, maxDeltaChars } = this.rt.settings.stream;
    if (coalesceMs === 0 || this.#text.length >= maxDeltaChars) {
      this.#flushText();
    } else if (!this.#timer) {
      const generation = this.#generation;
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (generation === this.#generation) this.#flushText();
      }, coalesceMs);
    }
  }

  /** Appends one event (after any text gathered before it). */
  append(type: string, data: Record<string, unknown>): void {
    this.#flushText();
    this.#enqueue(type, data);
  }

  /** Waits until everything appended so far is stored and sent; throws what went wrong, if anything. */
  async drain(): Promise<void> {
    this.#flushText();
    await this.#tail;
    if (this.#failure) throw this.#failure;
  }

  #flushText(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#generation += 1;
    const { maxDeltaChars } = this.rt.settings.stream;
    const text = this.#text;
    this.#text = '';
    for (let i = 0; i < text.length; i += maxDeltaChars) {
      this.#enqueue('agent.message.delta', {
        message_id: this.#textMessageId,
        text: text.slice(i, i + maxDeltaChars),
      });
    }
  }

  #enqueue(type: string, data: Record<string, unknown>): void {
    this.#seq += 1;
    const event: SessionEvent = {
      seq: this.#seq,
      type,
      session_id: this.sessionId,
      run_id: this.runId,
      at: new Date().toISOString(),
      data,
    };
    this.#tail = this.#tail.then(() => this.#write(event));
  }

  async #write(event: SessionEvent): Promise<void> {
    if (this.#failure) return;
    try {
      if (!(await appendEvent(this.rt, event))) throw new FencedError(event.seq);
    } catch (error) {
      this.#failure = error;
      if (error instanceof FencedError) this.onFenced();
      return;
    }
    // The event is in the log: a host that misses it live reads it back, so a failed send is not fatal.
    await broadcast(this.rt, event).catch((error: unknown) =>
      this.rt.logger.warn('Could not send an event live', { seq: event.seq, error: String(error) }),
    );
  }
}
