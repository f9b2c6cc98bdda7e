import WebSocket from 'ws';

/** A frame the server sent, parsed. */
export type Frame = Record<string, unknown> & { type: string; seq?: number };

/** The events of an `events` frame, one each, in order; any other frame as it is. */
export function unpack(frame: Frame): Frame[] {
  return frame.type === 'events' && Array.isArray(frame.events) ? (frame.events as Frame[]) : [frame];
}

/**
 * A WebSocket host for tests: it records every frame and lets a test wait for the one it
 * expects, instead of sleeping.
 */
export class TestSocket {
  /** What the server sent, in order, with each `events` frame unpacked into its events. */
  readonly frames: Frame[] = [];
  /** How many WebSocket messages arrived (an `events` frame counts once). */
  rawFrames = 0;
  #waiters: { predicate: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  #closed: Promise<number>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.rawFrames += 1;
      for (const frame of unpack(JSON.parse(String(data)) as Frame)) {
        this.frames.push(frame);
        const [ready, waiting] = [this.#waiters.filter((w) => w.predicate(frame)), this.#waiters];
        this.#waiters = waiting.filter((w) => !ready.includes(w));
        for (const w of ready) w.resolve(frame);
      }
    });
    this.#closed = new Promise((resolve) => socket.on('close', (code) => resolve(code)));
  }

  /** Opens a socket, offering `protocols` (subprotocols) when given; rejects when the upgrade is refused. */
  static open(url: string, protocols?: string[]): Promise<TestSocket> {
    const socket = protocols ? new WebSocket(url, protocols) : new WebSocket(url);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new TestSocket(socket)));
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused: ${res.statusCode}`)),
      );
    });
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** The first frame (already received or still to come) that matches. */
  waitFor(predicate: (f: Frame) => boolean, what = 'a frame', timeoutMs = 15_000): Promise<Frame> {
    const seen = this.frames.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.frames.map((f) => f.type))}`),
          ),
        timeoutMs,
      );
      this.#waiters.push({
        predicate,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  }

  /** Sends a frame and waits for its route response (`assistant:accepted`, `assistant:joined` or an error). */
  async request(frame: Record<string, unknown>): Promise<Frame> {
    const before = this.frames.length;
    this.send(frame);
    return this.waitFor(
      (f) => this.frames.indexOf(f) >= before && f.type.startsWith('assistant:'),
      `the answer to ${String(frame.action)}`,
    );
  }

  /** Event frames of one session (they carry a seq), in arrival order. */
  events(sessionId?: string): Frame[] {
    return this.frames.filter((f) => typeof f.seq === 'number' && (!sessionId || f.session_id === sessionId));
  }

  close(): Promise<number> {
    this.socket.close();
    return this.#closed;
  }

  /** Drops the TCP connection without a close handshake, as a phone that lost its network does. */
  kill(): Promise<number> {
    this.socket.terminate();
    return this.#closed;
  }
}

/**
 * Whether a frame ends a turn (`session.status_idle` or `session.status_requires_action`): of the run
 * `runId` when one is named, in the session `sessionId` when one is named.
 */
export const turnEnded =
  (runId?: unknown, sessionId?: string) =>
  (f: Frame): boolean =>
    (f.type === 'session.status_idle' || f.type === 'session.status_requires_action') &&
    (runId === undefined || f.run_id === runId) &&
    (sessionId === undefined || f.session_id === sessionId);
