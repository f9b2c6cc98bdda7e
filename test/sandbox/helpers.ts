import { WebSocket } from 'ws';

/** A client socket whose frames and close can be awaited. */
export interface TestSocket {
  socket: WebSocket;
  /** The next text frame not yet taken. */
  next(): Promise<string>;
  /** Settles when the socket closes, with the code and reason the client saw. */
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a WebSocket and waits until it is open; rejects with the HTTP status if the upgrade is refused. */
export async function openSocket(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const socket = new WebSocket(url, { headers });
  const frames: string[] = [];
  const waiting: Array<(frame: string) => void> = [];
  socket.on('message', (data) => {
    const frame = data.toString();
    const take = waiting.shift();
    if (take) take(frame);
    else frames.push(frame);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new UpgradeRefused(res.statusCode ?? 0)));
    socket.once('error', reject);
  });
  return {
    socket,
    closed,
    next: () => {
      const frame = frames.shift();
      return frame !== undefined ? Promise.resolve(frame) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** The server answered the upgrade with an HTTP status instead of 101. */
export class UpgradeRefused extends Error {
  constructor(readonly statusCode: number) {
    super(`Upgrade refused with ${statusCode}`);
  }
}

/** Collects what a handler received, so that a test can wait for a particular one. */
export class Recorder<T> {
  readonly items: T[] = [];
  readonly #waiters: Array<{ test: (item: T) => boolean; resolve: (item: T) => void }> = [];

  /** Records an item and wakes whoever waits for it. */
  push(item: T): void {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.test(item)) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(item);
    }
  }

  /**
   * The first item, recorded or still to come, that passes the test. Rejects, naming `what` and
   * how many items did arrive, if none has come within `timeoutMs`.
   */
  waitFor(test: (item: T) => boolean, what = 'a matching item', timeoutMs = 10_000): Promise<T> {
    const found = this.items.find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        resolve: (item: T) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.items.length} recorded)`),
        );
      }, timeoutMs);
      this.#waiters.push(waiter);
    });
  }
}

/** Sends a message and waits until the socket has written it. */
export async function send(socket: WebSocket, data: string): Promise<void> {
  await new Promise<void>((resolve, reject) =>
    socket.send(data, (error) => (error ? reject(error) : resolve())),
  );
}
