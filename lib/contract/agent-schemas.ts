import * as z from 'zod';
import { jsonSchemaProblem } from './json-schema.ts';

/** Why a turn stopped, as the seed names them. */
export const StopReasonSchema = z.enum([
  'end_turn',
  'requires_action',
  'cancelled',
  'max_turns',
  'limit',
  'budget_reached',
  'error',
]);
export type StopReason = z.infer<typeof StopReasonSchema>;

/** What one model call used, or a whole turn. */
export const UsageSchema = z.object({
  inputTokens: z.number().nonnegative().optional(),
  outputTokens: z.number().nonnegative().optional(),
  totalTokens: z.number().nonnegative().optional(),
  cachedInputTokens: z.number().nonnegative().optional(),
  costUsd: z.number().nonnegative().optional(),
  model: z.string().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * An agent's suggestions: prompts a host may offer as one-tap messages (the demo page shows them
 * under the conversation). A host shows them as they are, so they stay few and short.
 */
export const SuggestionsSchema = z
  .array(z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'))
  .max(12, 'must be at most 12')
  .meta({
    description: 'Prompts a host may offer as one-tap messages, in order: at most 12, each 1–200 characters.',
  });

/**
 * An agent's `info`, checked when it is registered. `id` is required and unique within a server
 * (its rule is checked with the rest of the definition); `name`, `description` and `suggestions`
 * are what `GET /api/agents` lists for hosts; `capabilities` stays on the server.
 */
export const AgentInfoSchema = z.object({
  id: z.string().meta({ description: "The agent's id: what a message's `agent_id` names." }),
  /** The name a host shows for the agent. */
  name: z.string().optional().meta({ description: 'The name a host shows for the agent.' }),
  /** What the agent does, in a sentence or two. */
  description: z.string().optional().meta({ description: 'What the agent does.' }),
  capabilities: z.record(z.string(), z.boolean()).optional(),
  /** Prompts a host may offer as one-tap messages, in order: at most 12, each 1–200 characters. */
  suggestions: SuggestionsSchema.optional(),
});
/** Agent metadata, as a definition gives it: `id` is required and unique within a server. */
export type HostAgentInfo = z.input<typeof AgentInfoSchema>;

/** What hosts may read of an agent (`GET /api/agents`): its id, name, description and suggestions. */
export const AgentSummarySchema = AgentInfoSchema.pick({
  id: true,
  name: true,
  description: true,
  suggestions: true,
}).strict();
export type AgentSummary = z.output<typeof AgentSummarySchema>;

/** Text the model reads as part of the message: a text attachment, or the text of a text file. */
export const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });

/** Content given inline: base64 (standard alphabet, no `data:` prefix) and its media type. */
const inline = { mediaType: z.string(), data: z.string() };
/** Content the model provider fetches itself: an http(s) URL, with its media type when the host gave one. */
const linked = { mediaType: z.string().optional(), url: z.string() };

/** An image for the model: inline (`data`) or by URL. */
export const ImagePartSchema = z.union([
  z.object({ type: z.literal('image'), ...inline }),
  z.object({ type: z.literal('image'), ...linked }),
]);

/** A document for the model (a PDF, a spreadsheet, a text file by URL): inline (`data`) or by URL. */
export const DocumentPartSchema = z.union([
  z.object({ type: z.literal('document'), ...inline, name: z.string().optional() }),
  z.object({ type: z.literal('document'), ...linked, name: z.string().optional() }),
]);

/**
 * A reference attachment as native model content (the host contract's binary, image URL, document
 * URL, or text): what `io.parts()` gives for a message. `data` is base64 (standard alphabet, no
 * `data:` prefix), the form model providers take inline content in.
 *
 * @example
 * ```ts
 * import type { ContentPart } from 'switchboard';
 *
 * // One part as a provider's content block.
 * const block = (part: ContentPart) =>
 *   part.type === 'text'
 *     ? { type: 'text', text: part.text }
 *     : 'data' in part
 *       ? { type: part.type, source: { type: 'base64', media_type: part.mediaType, data: part.data } }
 *       : { type: part.type, source: { type: 'url', url: part.url } };
 * ```
 */
export const ContentPartSchema = z.union([TextPartSchema, ImagePartSchema, DocumentPartSchema]);
export type ContentPart = z.infer<typeof ContentPartSchema>;
export type TextPart = z.infer<typeof TextPartSchema>;
export type ImagePart = z.infer<typeof ImagePartSchema>;
export type DocumentPart = z.infer<typeof DocumentPartSchema>;

const isDate = (value: string) => !Number.isNaN(Date.parse(value));

/** A request the turn waits on: an approval, a question or a client tool. */
export const PendingActionSchema = z
  .object({
    id: z.string().min(1),
    /** `host_tool` is a call of a host tool, which the host performs (see the host contract). */
    type: z.enum(['tool_approval', 'user_question', 'client_tool', 'host_tool']),
    toolName: z.string().optional(),
    title: z.string().optional(),
    args: z.unknown().optional(),
    /** A JSON Schema of the tool's arguments (see toJsonSchema): answers' approvedArgs are checked against it. */
    argsSchema: z
      .record(z.string(), z.unknown())
      .superRefine((schema, ctx) => {
        const problem = jsonSchemaProblem(schema);
        if (problem) ctx.addIssue({ code: 'custom', message: `argsSchema ${problem}` });
      })
      .optional(),
    questions: z
      .array(
        z
          .object({
            question: z.string(),
            options: z.array(z.object({ label: z.string() }).loose()).optional(),
          })
          .loose(),
      )
      .optional(),
    expiresAt: z.string().refine(isDate, 'expiresAt is not a date').optional(),
  })
  .loose();
export type PendingAction = z.infer<typeof PendingActionSchema>;

const PendingActionsSchema = z.array(PendingActionSchema).superRefine((actions, ctx) => {
  const seen = new Set<string>();
  actions.forEach((action, index) => {
    if (seen.has(action.id)) {
      ctx.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `Two actions share the id "${action.id}".`,
      });
    }
    seen.add(action.id);
  });
});

/** A file the answer produced, already stored. */
export const FileRefSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  mimeType: z.string().optional(),
  size: z.number().nonnegative().optional(),
});

/** The stop reasons a loop may be carried on from (`POST /api/sessions/{id}/continue`). */
export const CONTINUABLE_STOPS = ['max_turns', 'budget_reached'] as const satisfies readonly StopReason[];

/** The facts of a turn, as `invoke`, `resolveAction` and `continueTurn` return them. */
export const HostResultSchema = z
  .object({
    content: z.string().nullable().optional(),
    pendingActions: PendingActionsSchema.optional(),
    status: z.enum(['completed', 'requires_action', 'incomplete', 'cancelled']).optional(),
    stopReason: StopReasonSchema.optional(),
    usage: UsageSchema.optional(),
    files: z.array(FileRefSchema).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    detail: z.unknown().optional(),
    /**
     * What the agent's loop needs to carry on a turn it stopped (status `incomplete`, stop reason
     * `max_turns` or `budget_reached`): a JSON object the runtime keeps with the run and hands back
     * to `continueTurn` when the caller continues the turn. No image bytes: it is stored.
     */
    resume: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((result, ctx) => {
    if (result.resume === undefined) return;
    const stop = result.stopReason;
    if (result.status !== 'incomplete' || !stop || !(CONTINUABLE_STOPS as readonly string[]).includes(stop))
      ctx.addIssue({
        code: 'custom',
        path: ['resume'],
        message: 'resume is only for status "incomplete" with stopReason "max_turns" or "budget_reached"',
      });
  });
export type HostResult = z.infer<typeof HostResultSchema>;

/**
 * A warning's code: a snake_case word. The runtime's own: `mcp_server_unavailable` (a server's tool
 * list could not be read, so its tools are not offered this turn) and `mcp_tool_left_out` (tools of a
 * server the model is not offered, with why).
 */
export const WarningCodeSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a snake_case word of at most 64 characters');

/** Every event an agent may emit while a turn runs. */
export const HostEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    args: z.unknown().optional(),
    /** The call ran without asking: its tool was remembered for the session (`remember_for_session`). */
    remembered: z.literal(true).optional(),
  }),
  z.object({
    type: z.literal('tool_result'),
    id: z.string().min(1),
    name: z.string().optional(),
    result: z.unknown().optional(),
    error: z.unknown().optional(),
  }),
  z.object({ type: z.literal('action_required'), actions: PendingActionsSchema.refine((a) => a.length > 0) }),
  z.object({ type: z.literal('usage'), usage: UsageSchema }),
  z.object({ type: z.literal('stop'), stopReason: StopReasonSchema, detail: z.unknown().optional() }),
  /**
   * Something the turn goes on without, which the host and the operator should know: published as
   * `agent.warning`, logged, and counted (`McpServersUnavailable` for `mcp_server_unavailable`).
   */
  z.object({
    type: z.literal('warning'),
    code: WarningCodeSchema,
    message: z.string().min(1).max(2000),
    /** What it is about: the MCP server's name, for the runtime's own warnings. */
    source: z.string().min(1).max(128).optional(),
  }),
]);
export type HostEvent = z.infer<typeof HostEventSchema>;
