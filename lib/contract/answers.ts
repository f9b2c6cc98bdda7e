import * as z from 'zod';
import { ResolveRequestSchema } from './chat.ts';

const asked = ResolveRequestSchema.shape;

/**
 * A recorded answer as the wire shows it (`decision` of `POST /api/sessions/{id}/actions/{actionId}`
 * and `assistant:resolved`, `resolution` of a request and of `action.resolved`): the fields of the
 * answer that was sent, in the contract's snake_case, or what the server decided without one (a
 * lapse, a host tool call's result). Only the documents and the event schemas read it: the functions
 * render an answer with `resolutionView` (lib/actions/views.ts), which needs no schema.
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
