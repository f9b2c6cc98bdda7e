import * as z from 'zod';
import { ResolutionSchema } from '../contract/answers.ts';
import { PendingActionSchema, StopReasonSchema, UsageSchema, WarningCodeSchema } from '../contract/index.ts';
import { RewriteModeSchema } from '../contract/messages.ts';
import type { RunKind } from '../store/index.ts';

/**
 * The `data` of each event type of a session's event log (docs/protocol.md, "Events"): what the
 * runs append (`EventStream.append` takes nothing else), what the AsyncAPI document describes and
 * what the client's types are made of. The runs and the client import them as types only: the
 * schemas stay out of the functions' and the browser's bundles.
 */

const messageId = z.string();

/** A host tool call the turn waits on: `final_response.pending_tool_call`, and `pending_action` on `GET /api/sessions/{id}`. */
export const PendingToolCallSchema = z
  .object({
    tool_name: z.string(),
    call_id: z.string(),
    arguments: z.unknown(),
    /** Call ids of further host actions of the same response, handed over one at a time. */
    queued: z.array(z.string()),
  })
  .strict();
export type PendingToolCall = z.infer<typeof PendingToolCallSchema>;

/** A file an answer produced (`final_response.files`). */
export const AnswerFileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    media_type: z.string().nullable(),
    size: z.number().nullable(),
  })
  .strict();
export type AnswerFile = z.infer<typeof AnswerFileSchema>;

/** What closes a turn: `session.status_idle` and `session.status_requires_action`. */
const TurnEndSchema = z
  .object({
    status: z.enum(['completed', 'error', 'cancelled', 'incomplete', 'requires_action']),
    stop_reason: StopReasonSchema,
    /** The agent's `detail`, or the reason of a cancel (`{reason}`); null without one. */
    detail: z.unknown(),
    /** What the session has spent with this turn, in US dollars; absent when a lost run is closed. */
    spent_usd: z.number().optional(),
    usage: UsageSchema.optional(),
  })
  .strict();

const RUN_KINDS = [
  'turn',
  'resolve',
  'continue',
  'lapse',
  'withdraw',
  'delete',
] as const satisfies readonly RunKind[];

/** Every event type of the log, with the schema of its `data`. */
export const SESSION_EVENTS = {
  'session.status_running': z
    .object({
      /** What the run does: a message's turn, an answer's, a stopped turn continued, a lapse, a withdrawal, a deletion. */
      kind: z.enum(RUN_KINDS),
      /** A continued turn: the stopped run whose loop it carries on. */
      continues: z.string().optional(),
      /** The runs a message under `on_busy: "interrupt"` stopped. */
      interrupted: z.array(z.string()).optional(),
      /** The request an answer's (or a lapse's) run is about. */
      action_id: z.string().nullable().optional(),
    })
    .strict(),
  'messages.replaced': z
    .object({ message_ids: z.array(z.string()), mode: RewriteModeSchema, from_message_id: z.string() })
    .strict(),
  'user.message': z
    .object({
      message_id: messageId,
      content: z.string(),
      mode: RewriteModeSchema.optional(),
      from_message_id: z.string().optional(),
      /** A steering message: the run it was folded into. */
      steered_into: z.string().optional(),
    })
    .strict(),
  'agent.message.delta': z.object({ message_id: messageId, text: z.string() }).strict(),
  'agent.tool_use': z
    .object({
      message_id: messageId,
      id: z.string(),
      name: z.string(),
      args: z.unknown(),
      remembered: z.literal(true).optional().meta({
        description:
          'Present (true) when the call ran without asking: an approval of this tool was answered with `remember_for_session: true` earlier in the session.',
      }),
    })
    .strict(),
  'agent.tool_result': z
    .object({
      message_id: messageId,
      id: z.string(),
      name: z.string().nullable(),
      ok: z.boolean(),
      result: z.unknown(),
      error: z.unknown(),
    })
    .strict(),
  'agent.warning': z
    .object({
      message_id: messageId,
      code: WarningCodeSchema.meta({
        description:
          "What happened: `mcp_server_unavailable` (an MCP server's tools could not be read; the turn goes on without them), `mcp_tool_left_out` (tools of a server not offered, with why), or an agent's own code.",
      }),
      message: z.string(),
      /** What it is about: an MCP server's name; null when the warning names none. */
      source: z.string().nullable(),
    })
    .strict(),
  tool_call: z
    .object({
      message_id: messageId,
      category: z.literal('host'),
      call_id: z.string(),
      name: z.string(),
      arguments: z.unknown(),
    })
    .strict(),
  'action.required': z.object({ message_id: messageId, actions: z.array(PendingActionSchema) }).strict(),
  'action.resolved': z
    .object({
      action_id: z.string(),
      message_id: messageId,
      type: PendingActionSchema.shape.type,
      status: z.enum(['resolved', 'cancelled', 'expired', 'superseded']),
      actor: z.string(),
      channel: z.enum(['api', 'timeout', 'system']),
      expired: z.boolean(),
      /** The answer as recorded; null for a request decided without one. */
      resolution: ResolutionSchema.nullable(),
    })
    .strict(),
  final_response: z
    .object({
      message_id: messageId,
      /** The stored answer of this run; null for a silent decision and for an answer that changed nothing. */
      content: z.string().nullable(),
      /** With `output_mode: "host_tools"`. */
      decision: z.enum(['hold', 'pending', 'completed']).optional(),
      stop_reason: StopReasonSchema,
      usage: UsageSchema.nullable(),
      pending_tool_call: PendingToolCallSchema.nullable(),
      files: z.array(AnswerFileSchema),
    })
    .strict(),
  'session.error': z.object({ code: z.string(), message: z.string(), status: z.number().int() }).strict(),
  'session.status_idle': TurnEndSchema,
  'session.status_requires_action': TurnEndSchema,
  'session.deleted': z.object({}).strict(),
} satisfies Record<string, z.ZodType>;

/** Every event type the log holds. */
export type SessionEventType = keyof typeof SESSION_EVENTS;

/** The `data` of one event type. */
export type SessionEventData<T extends SessionEventType> = z.infer<(typeof SESSION_EVENTS)[T]>;
