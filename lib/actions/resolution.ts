import type { ResolveRequest } from '../contract/index.ts';
import { compiled } from '../contract/index.ts';
import { type Issue, ValidationError } from '../errors/index.ts';
import type { ActionRecord } from '../store/index.ts';

const fail = (issues: Issue[]): never => {
  throw new ValidationError(
    `Invalid answer at ${issues[0]?.path.join('.') || '(root)'}: ${issues[0]?.message}`,
    issues,
  );
};

/**
 * The answer as `resolveAction` receives it (`resolution`), checked against what was asked: an
 * approval needs a decision, and approvedArgs must satisfy the request's argsSchema; a question
 * needs answers; a client tool an output or an error.
 */
export function resolutionOf(action: ActionRecord, request: ResolveRequest): Record<string, unknown> {
  const common = { ...(request.comment !== undefined && { comment: request.comment }) };
  switch (action.kind) {
    case 'tool_approval': {
      if (!request.decision) fail([{ path: ['decision'], message: 'an approval needs "approve" or "deny"' }]);
      if (request.approved_args !== undefined && request.decision !== 'approve') {
        fail([{ path: ['approved_args'], message: 'only with "decision": "approve"' }]);
      }
      const schema = (action.action as { argsSchema?: object }).argsSchema;
      if (request.approved_args !== undefined && schema) {
        const validate = compiled(schema);
        if (!validate(request.approved_args)) {
          fail(
            (validate.errors ?? []).map((e) => ({
              path: ['approved_args', ...e.instancePath.split('/').filter(Boolean)],
              message: `${e.message ?? 'does not match argsSchema'}`,
            })),
          );
        }
      }
      return {
        decision: request.decision,
        ...common,
        ...(request.approved_args !== undefined && { approvedArgs: request.approved_args }),
        ...(request.remember_for_session !== undefined && {
          rememberForSession: request.remember_for_session,
        }),
      };
    }
    case 'user_question':
      if (request.answers === undefined) fail([{ path: ['answers'], message: 'a question needs answers' }]);
      return { answers: request.answers, ...common };
    case 'client_tool':
      if ((request.output === undefined) === (request.error === undefined)) {
        fail([{ path: ['output'], message: 'a client tool needs exactly one of output or error' }]);
      }
      return {
        type: 'client_tool',
        ...(request.error !== undefined ? { error: request.error } : { output: request.output }),
      };
    default:
      return fail([
        {
          path: [],
          message: 'a host tool call is answered with a continuation (POST /api/chat with tool_call_id)',
        },
      ]);
  }
}

const SCREENSHOT = /^data:image\/[A-Za-z0-9.+-]+;base64,/;

/**
 * A host tool's result as the agent reads it: every image data URI, at any depth, is taken out and
 * offered to look_at_screen instead (the host contract's rule for screenshots in results).
 */
export function withoutScreenshots(
  value: unknown,
  found: string[] = [],
): { value: unknown; screenshots: string[] } {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && SCREENSHOT.test(v)) {
      found.push(v);
      return `[screenshot ${found.length}: see look_at_screen]`;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v))
        Object.defineProperty(out, k, {
          value: walk(item),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      return out;
    }
    return v;
  };
  return { value: walk(value), screenshots: found };
}
