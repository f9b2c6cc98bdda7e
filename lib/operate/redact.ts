import type { SessionEvent } from '../store/index.ts';

/** What a masked value reads as. */
export const REDACTED = '[redacted]';

/**
 * Keys whose values are structure, never what a person wrote or an agent answered: ids, types,
 * statuses, reasons, tool names, counts. Every other string is masked.
 */
const STRUCTURAL = new Set([
  'message_id',
  'message_ids',
  'from_message_id',
  'steered_into',
  'id',
  'action_id',
  'call_id',
  'run_id',
  'interrupted',
  'queued',
  'kind',
  'type',
  'status',
  'stop_reason',
  'mode',
  'category',
  'channel',
  'decision',
  'code',
  'name',
  'toolName',
  'tool_name',
  'media_type',
  'actor',
  'expiresAt',
  'expires_at',
  'outcome',
  'remember_for_session',
]);

/** Keys whose whole value is content (tool arguments and results, answers, questions): masked as one. */
const CONTENT = new Set([
  'args',
  'arguments',
  'approved_args',
  'approvedArgs',
  'result',
  'output',
  'error',
  'answers',
  'questions',
  'comment',
  'title',
  'detail',
]);

/** Keys whose whole value is the agent's structure, kept as it is: a tool's argument schema, usage. */
const KEPT = new Set(['argsSchema', 'usage']);

function redactValue(value: unknown, key: string | undefined, inFiles: boolean): unknown {
  if (value === null || value === undefined) return value;
  if (key !== undefined && KEPT.has(key)) return value;
  if (key !== undefined && CONTENT.has(key)) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, key, inFiles));
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        redactValue(v, k, inFiles || k === 'files'),
      ]),
    );
  }
  if (typeof value !== 'string') return value;
  // A file's name is the user's; a tool's name is the agent's.
  return key !== undefined && STRUCTURAL.has(key) && !(inFiles && key === 'name') ? value : REDACTED;
}

/**
 * An event with its user content masked (`tail --redact`): message text and deltas, tool arguments
 * and results, questions and answers, error messages and file names read `[redacted]`; its seq,
 * type, run, time, ids, statuses, tool names, numbers and booleans stay, so its shape can be read
 * and shared without what the users wrote.
 */
export function redactEvent(event: SessionEvent): SessionEvent {
  return { ...event, data: redactValue(event.data, undefined, false) as Record<string, unknown> };
}
