import * as z from 'zod';
import { IdSchema, RequestIdSchema, SessionIdSchema } from '../contract/index.ts';
import { parseOrThrow } from '../errors/index.ts';

/**
 * AG-UI's `RunAgentInput`, the body an AG-UI client (`HttpAgent`, CopilotKit) posts, as far as
 * Switchboard reads it. Objects are loose on purpose: AG-UI adds optional fields within a protocol
 * version (`encryptedValue`, `subagentRunId`, `metadata` on a message), and a field Switchboard does
 * not read changes nothing it does. What it reads is checked, each issue with its path.
 */

/** A user message's content: text, or parts of which the text ones are read. */
const UserContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string().min(1), text: z.string().optional() })),
]);

/** One message of the conversation, told apart by `role`. */
export const AguiMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ id: z.string().min(1), role: z.literal('user'), content: UserContentSchema }),
  z.looseObject({
    id: z.string().min(1),
    role: z.literal('tool'),
    toolCallId: IdSchema,
    content: z.string(),
    error: z.string().optional(),
  }),
  z.looseObject({ id: z.string().min(1), role: z.literal('assistant') }),
  z.looseObject({ id: z.string().min(1), role: z.literal('system') }),
  z.looseObject({ id: z.string().min(1), role: z.literal('developer') }),
  z.looseObject({ id: z.string().min(1), role: z.literal('reasoning') }),
  z.looseObject({ id: z.string().min(1), role: z.literal('activity') }),
]);
export type AguiMessage = z.infer<typeof AguiMessageSchema>;

/** A frontend tool: it becomes a request-declared host action. */
export const AguiToolSchema = z.looseObject({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.unknown().optional(),
});

/** An entry of `context`: it becomes view data, `description` the key. */
export const AguiContextSchema = z.looseObject({ description: z.string(), value: z.string() });

/** An answer to one interrupt (an approval, a question or a client tool of Switchboard). */
export const AguiResumeSchema = z.looseObject({
  interruptId: IdSchema,
  status: z.enum(['resolved', 'cancelled']),
  payload: z.unknown().optional(),
});
export type AguiResume = z.infer<typeof AguiResumeSchema>;

/**
 * The ids of a request, checked before anything is looked up by them: `threadId` is the session (the
 * host's id or a ref), `runId` the request id of what it asks, each `interruptId` a request of the
 * session. The ids, then the ownership gate, then the rest of the body: see `acceptRun`.
 */
export const AguiIdsSchema = z.looseObject({
  threadId: SessionIdSchema,
  runId: RequestIdSchema,
  resume: z.array(z.looseObject({ interruptId: AguiResumeSchema.shape.interruptId })).optional(),
});
export type AguiIds = z.infer<typeof AguiIdsSchema>;

/** The request: its ids ({@link AguiIdsSchema}) and what it says. */
export const RunAgentInputSchema = z.looseObject({
  threadId: AguiIdsSchema.shape.threadId,
  runId: AguiIdsSchema.shape.runId,
  messages: z.array(AguiMessageSchema),
  tools: z.array(AguiToolSchema).optional(),
  context: z.array(AguiContextSchema).optional(),
  state: z.unknown().optional(),
  forwardedProps: z.unknown().optional(),
  resume: z.array(AguiResumeSchema).optional(),
});
export type RunAgentInput = z.infer<typeof RunAgentInputSchema>;

/** A posted body, validated: a 422 naming the field otherwise. */
export function parseRunAgentInput(value: unknown): RunAgentInput {
  return parseOrThrow(RunAgentInputSchema, value, 'RunAgentInput');
}

/** A posted body's ids alone, validated: a 422 naming the field otherwise. */
export function parseAguiIds(value: unknown): AguiIds {
  return parseOrThrow(AguiIdsSchema, value, 'RunAgentInput');
}
