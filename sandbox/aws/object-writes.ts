import type { IncomingHttpHeaders } from 'node:http';
import type { AwsErrorKind } from './errors.ts';

/**
 * Runs the writes to one object key one at a time, as S3 applies them: a conditional PUT's look at
 * the key and its write are one step, so no other write to the key comes between them.
 */
export class ObjectWrites {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, write: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const done = before.then(write, write);
    const tail = done.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return done;
  }
}

/**
 * What S3 answers a PUT's preconditions with, given whether the key holds an object: `If-None-Match:
 * *` on a key that does → 412 `PreconditionFailed` (the object can be written once); any other
 * `If-None-Match` value is not something S3 does on a write (501 `NotImplemented`).
 */
export async function preconditionRefusal(
  headers: IncomingHttpHeaders,
  exists: () => Promise<boolean>,
): Promise<{ kind: AwsErrorKind; message: string } | undefined> {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch === undefined) return undefined;
  if (ifNoneMatch.trim() !== '*')
    return {
      kind: 'notImplemented',
      message: 'A header you provided implies functionality that is not implemented',
    };
  if (await exists())
    return {
      kind: 'preconditionFailed',
      message: 'At least one of the pre-conditions you specified did not hold',
    };
  return undefined;
}
