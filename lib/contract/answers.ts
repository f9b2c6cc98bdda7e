import * as z from 'zod';
import { ResolveRequestSchema } from './chat.ts';
import { normalizeKeys, shapeOf } from './normalize.ts';

const asked = ResolveRequestSchema.shape;

/**
 * A recorded answer as the wire shows it (`decision` of `POST /api/sessions/{id}/actions/{actionId}`
 * and `assistant:resolved`, `resolution` of a request and of `action.resolved`): the fields of the
 * answer that was sent, in the contract's snake_case, or what the server decided without one (a
 * lapse, a host tool call's result).
 */
export const ResolutionSchema = z
  .object({
    decision: asked.decision,
    comment: z.string().optional(),
    approved_args: asked.approved_args,
    remember_for_session: asked.remember_for_session,
    /** A question's answers; null for one that lapsed. */
    answers: asked.answers.unwrap().nullable().optional(),
    /** Set for a client tool's and a host tool call's answer. */
    type: z.enum(['client_tool', 'host_tool']).optional(),
    output: z.unknown().optional(),
    error: z.string().optional(),
    /** A host tool call's result, as its continuation reported it. */
    outcome: z.enum(['succeeded', 'failed']).optional(),
    result: z.unknown().optional(),
  })
  .strict();
export type Resolution = z.infer<typeof ResolutionSchema>;

const RESOLUTION_SHAPE = shapeOf(ResolutionSchema);

/**
 * An answer as the agent was handed it (`resolution`, with the host contract's `approvedArgs` and
 * `rememberForSession`) in its wire form; the host's own values inside it keep their keys.
 */
export function resolutionView(resolution: Record<string, unknown>): Resolution {
  return normalizeKeys(resolution, RESOLUTION_SHAPE) as Resolution;
}
