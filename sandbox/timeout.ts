/**
 * `work`'s value, or `timedOut` if it has not settled within `ms`. The timer is cleared either way;
 * `work` itself is not stopped (neither is a Lambda function whose caller stopped waiting).
 */
export async function withTimeout<T, U>(work: Promise<T>, ms: number, timedOut: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<U>((resolve) => {
    timer = setTimeout(() => resolve(timedOut), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
