/**
 * How long a test waits for the queue, the worker and the table to catch up. Generous, for a
 * loaded two-core machine, and well within the 30 s a test may take.
 */
export const QUEUE_WAIT_MS = 15_000;

/**
 * Options for an `expect.poll` that waits on the queue and the worker: an explicit timeout
 * instead of the 1 s default, and a message naming what was awaited.
 */
export function queued(what: string, timeoutMs = QUEUE_WAIT_MS) {
  return { timeout: timeoutMs, interval: 50, message: `waiting for ${what}` };
}

/** `promise`, or a rejection naming `what` if it has not settled within `timeoutMs`. */
export function within<T>(promise: Promise<T>, what: string, timeoutMs = QUEUE_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
