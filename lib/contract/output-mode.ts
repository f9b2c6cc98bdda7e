import * as z from 'zod';
import type { OnBusy } from './on-busy.ts';

/**
 * How a turn answers: absent for a conversation; `host_tools` for a silent host decision, where
 * the agent is offered only the context's actions plus the reserved `hold`, and the final response
 * carries `decision` (hold, pending or completed) and never prose.
 */
export const OutputModeSchema = z.enum(['host_tools']);
export type OutputMode = z.infer<typeof OutputModeSchema>;

/** The reserved tool of `host_tools`: the agent calls it (or proposes nothing) to hold. */
export const HOLD_TOOL = 'hold';

/** What `host_tools` refuses in a message: steering, and an action named `hold`. */
export function outputModeIssues(body: {
  output_mode?: OutputMode;
  steer?: boolean;
  on_busy?: OnBusy;
  host_context?: { actions?: { name: string }[] };
}): { path: (string | number)[]; message: string }[] {
  if (body.output_mode !== 'host_tools') return [];
  const issues: { path: (string | number)[]; message: string }[] = [];
  if (body.steer)
    issues.push({ path: ['steer'], message: 'steering is unsupported in output_mode "host_tools"' });
  if (body.on_busy === 'steer')
    issues.push({ path: ['on_busy'], message: 'steering is unsupported in output_mode "host_tools"' });
  (body.host_context?.actions ?? []).forEach((action, i) => {
    if (action.name === HOLD_TOOL)
      issues.push({
        path: ['host_context', 'actions', i, 'name'],
        message: `"${HOLD_TOOL}" is reserved in output_mode "host_tools"; use another name`,
      });
  });
  return issues;
}

/**
 * The longest `wait_ms` of `POST /api/chat` (the answer is the final response once the turn
 * closes): within the HTTP API's 30 s integration timeout, and billed as Lambda time.
 */
export const MAX_CHAT_WAIT_MS = 25_000;

/** `wait_ms` is an HTTP request's: a WebSocket message's answer is its stream. */
export const ChatWaitSchema = z.number().int().min(0).max(MAX_CHAT_WAIT_MS);
