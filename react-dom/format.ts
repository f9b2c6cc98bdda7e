/** What the chat's parts say in words: arguments, refusals and how a request ended. */
import type { RequestPart } from '../react/index.ts';

/** A value as one line of JSON (`{}` for nothing). */
export const json = (value: unknown) => JSON.stringify(value ?? {});

/** What a refused request says: the fields an `ArgsValidationError` names, else its code and message. */
export function describe(error: unknown): string {
  const issues = (error as { issues?: { path: (string | number)[]; message: string }[] }).issues;
  if (issues?.length) return issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const { code, message } = error as { code?: string; message?: string };
  return code ? `${code}: ${message}` : String(message ?? error);
}

/** How a settled request ended. */
export function outcomeOf(part: RequestPart): string {
  if (part.state === 'expired') return 'Expired';
  if (part.state !== 'resolved') return 'Withdrawn';
  const resolution = (part.resolution ?? {}) as { decision?: string; answers?: unknown };
  if (resolution.decision === 'approve')
    return part.resolution?.approved_args
      ? `Approved with ${json(part.resolution.approved_args)}`
      : 'Approved';
  if (resolution.decision === 'deny') return 'Denied';
  if (resolution.answers !== undefined) {
    const answers = Array.isArray(resolution.answers)
      ? resolution.answers
      : Object.values(resolution.answers as object);
    return `Answered: ${answers.join(', ')}`;
  }
  return 'Answered';
}
