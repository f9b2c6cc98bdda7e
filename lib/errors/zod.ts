import type { z } from 'zod';
import { type Issue, ValidationError } from './errors.ts';

/** Turns zod issues into contract issues: a path of keys and indexes, and a message. */
export function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: `Unknown field "${key}".` }));
    }
    return [{ path, message: issue.message }];
  });
}

/**
 * Parses `value` with `schema`, or throws a {@link ValidationError} whose message names the
 * first failing path, so a person reading only the message still knows where to look.
 */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: string,
  spell: (path: (string | number)[]) => (string | number)[] = (path) => path,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throwIssues(
    issuesOf(parsed.error).map((issue) => ({ ...issue, path: spell(issue.path) })),
    what,
  );
}

/** Throws a {@link ValidationError} for `issues`, its message naming the first one's path. */
export function throwIssues(issues: Issue[], what: string): never {
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
  throw new ValidationError(`Invalid ${what}${where}: ${first?.message ?? 'not accepted'}`, issues);
}
