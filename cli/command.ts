import type { Command } from 'commander';
import { isSessionRef } from '../lib/auth/index.ts';
import { SessionNotFoundError } from '../lib/errors/index.ts';
import { type CliIo, type TargetOptions, usageError, withTarget } from './io.ts';

/** The options of a command that names a session: where, and whose host id it is. */
export type SessionOptions = TargetOptions & { user?: string; tenant?: string };

/** An operator command's action: runs against its target and says whether it succeeded. */
type Action<A extends unknown[], O> = (io: CliIo, ...args: [...A, O]) => Promise<boolean>;

/** Wraps an action so that its exit code is recorded (0 when it succeeded, 1 when it did not). */
export function run<A extends unknown[], O>(io: CliIo, exit: (code: number) => void, action: Action<A, O>) {
  return async (...args: [...A, O, Command]) => {
    const ok = await action(io, ...(args.slice(0, -1) as [...A, O]));
    exit(ok ? 0 : 1);
  };
}

/** The target options, and the owner a host's own session id is scoped to. */
export const sessionOptions = (command: Command) =>
  withTarget(command)
    .option('--user <id>', "the session's owner, when <session> is the host's own id rather than its ref")
    .option('--tenant <id>', "the owner's tenant, with --user");

/** `3 sessions`, `1 file`. */
export const n = (list: unknown[], one: string, many = `${one}s`) =>
  `${list.length} ${list.length === 1 ? one : many}`;

/** A `--max`-like option: a positive whole number. */
export function positive(name: string, value: string): number {
  const number = Number(value);
  if (!(Number.isInteger(number) && number > 0))
    throw usageError(`${name} takes a positive whole number (got "${value}").`);
  return number;
}

/**
 * Runs `work` on a session the command line named; a session not found by a host's own id given
 * without `--user` says why: that id is scoped to its owner, so it needs the owner or the ref.
 */
export async function withSessionHint<T>(
  session: string,
  options: { user?: string },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SessionNotFoundError) || options.user !== undefined || isSessionRef(session))
      throw error;
    const hinted = new SessionNotFoundError(session, error.issues);
    hinted.message = `${error.message} "${session}" looks like a host's own session id, which is scoped to its owner: add --user ID (and --tenant ID), or give the session's ref (as logs, GET /api/sessions/{id} and switchboard inspect show it).`;
    throw hinted;
  }
}
