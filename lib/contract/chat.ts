import * as z from 'zod';
import { parseOrThrow, throwIssues } from '../errors/index.ts';
import { AttachmentSchema } from './attachments.ts';
import { HOST_CONTEXT_LIMITS, HostContextSchema, jsonObject } from './host-context.ts';
import { IdSchema, SessionIdSchema } from './ids.ts';
import { checkDepth } from './json-body.ts';
import { MessageIdSchema, RewriteModeSchema, rewriteIssues } from './messages.ts';
import { normalizeKeys, pathAsSent, type Renames, type Shape, shapeOf } from './normalize.ts';
import { OnBusySchema, onBusyProblem } from './on-busy.ts';
import { ChatWaitSchema, OutputModeSchema, outputModeIssues } from './output-mode.ts';

/** Request ids double as SQS deduplication ids: 1-128 printable ASCII characters. */
export const RequestIdSchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters without spaces');

/** Fields of a message bounded by their size as UTF-8 JSON, in bytes: no JSON Schema keyword says it. */
export const CHAT_JSON_BYTES = { metadata: 16_384, tool_result: 262_144 } as const;

/** The body of `POST /api/chat` and of the `assistant_message` WebSocket action. */
export const ChatRequestSchema = z
  .object({
    id: RequestIdSchema.optional(),
    session_id: SessionIdSchema.optional(),
    agent_id: z.string().min(1).max(128).optional(),
    content: z.string().max(100_000),
    metadata: jsonObject.optional(),
    host_context: HostContextSchema.optional(),
    attachments: z.array(AttachmentSchema).max(HOST_CONTEXT_LIMITS.attachments).optional(),
    /** Legacy: data URIs that become screenshot attachments. */
    images: z
      .array(z.string().regex(/^data:[^,]*,/, 'must be a data: URI'))
      .max(HOST_CONTEXT_LIMITS.attachments)
      .optional(),
    /** Legacy: one data URI that becomes a screenshot attachment. */
    screenshot: z
      .string()
      .regex(/^data:[^,]*,/, 'must be a data: URI')
      .optional(),
    /** A continuation: the call_id of the pending host tool call this message answers. */
    tool_call_id: IdSchema.optional(),
    /** The host tool's result: any JSON. */
    tool_result: z.unknown().optional(),
    /** `failed` when the host could not perform the action. */
    tool_outcome: z.enum(['succeeded', 'failed']).optional(),
    /** Offer this message to the turn that is running (steering); it becomes the next turn if not taken. */
    steer: z.boolean().optional(),
    /** What the message does when a turn of the session is queued or running (`enqueue` by default). */
    on_busy: OnBusySchema.optional(),
    /** Asks for the newest answer again (`regenerate`) or changes a sent message (`edit`): see `from_message_id`. */
    mode: RewriteModeSchema.optional(),
    /** The answer a regenerate replaces, or the user message an edit replaces. */
    from_message_id: MessageIdSchema.optional(),
    /** `host_tools`: a silent host decision (hold, or exactly one host action), no prose. */
    output_mode: OutputModeSchema.optional(),
    /** `POST /api/chat` only: wait up to this many ms for the turn to close and answer with its final response. */
    wait_ms: ChatWaitSchema.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const [field, max] of Object.entries(CHAT_JSON_BYTES) as [keyof typeof CHAT_JSON_BYTES, number][]) {
      const bytes = body[field] === undefined ? 0 : Buffer.byteLength(JSON.stringify(body[field]) ?? '');
      if (bytes > max)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `at most ${max} bytes of JSON (got ${bytes})`,
        });
    }
    for (const issue of rewriteIssues(body)) ctx.addIssue({ code: 'custom', ...issue });
    if (body.tool_call_id === undefined) {
      if (body.content.length === 0 && body.mode !== 'regenerate')
        ctx.addIssue({ code: 'custom', path: ['content'], message: 'must not be empty' });
      for (const field of ['tool_result', 'tool_outcome'] as const) {
        if (body[field] !== undefined)
          ctx.addIssue({ code: 'custom', path: [field], message: 'only with tool_call_id' });
      }
    } else if (body.steer) {
      ctx.addIssue({
        code: 'custom',
        path: ['steer'],
        message: 'steering is unsupported for a continuation',
      });
    } else if (!Object.hasOwn(body, 'tool_result')) {
      ctx.addIssue({ code: 'custom', path: ['tool_result'], message: 'a continuation needs tool_result' });
    }
    const onBusy = onBusyProblem(body);
    if (onBusy) ctx.addIssue({ code: 'custom', path: ['on_busy'], message: onBusy });
    for (const issue of outputModeIssues(body)) ctx.addIssue({ code: 'custom', ...issue });
  });
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** The body of the `assistant_join_session` WebSocket action (without `action`). */
export const JoinRequestSchema = z
  .object({
    session_id: SessionIdSchema,
    after_seq: z.number().int().nonnegative().optional(),
    host_context: HostContextSchema.optional(),
  })
  .strict();
export type JoinRequest = z.infer<typeof JoinRequestSchema>;

/** The query of `GET /api/agents`: none (an unknown parameter is refused, as on every route). */
export const AgentsQuerySchema = z.object({}).strict();

/** The query of `GET /api/sessions/{id}/events`. */
export const EventsQuerySchema = z
  .object({
    after: z.coerce.number().int().nonnegative().default(0),
    limit: z.coerce.number().int().min(1).max(1000).default(500),
    /** Long poll: wait up to this many seconds for an event after `after` before answering. */
    wait: z.coerce.number().int().min(0).max(20).default(0),
  })
  .strict();

/** An event's `seq` in a path (`GET /api/sessions/{id}/events/{seq}`): a whole number from 1, as the log numbers events. */
export const EventSeqSchema = z.string().regex(/^[1-9][0-9]{0,14}$/, 'A seq is a whole number from 1.');

/**
 * The query of `GET /api/sessions`: a page of the caller's sessions, newest first, older than the
 * cursor `before` (the `next_before` of the page before: the creation time and id of its last session).
 */
/** One of the caller's sessions, as `GET /api/sessions` lists it. */
export const SessionSummarySchema = z
  .object({
    id: z.string(),
    /** The session's full reference (owner scope and id), for the routes that take it. */
    ref: z.string(),
    agent_id: z.string(),
    created_at: z.string(),
    /** The start of the message that made it; null for a session begun with files alone. */
    title: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .strict();
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

/** `200` of `GET /api/sessions`: a page of the caller's sessions, newest first. */
export const SessionListSchema = z
  .object({
    sessions: z.array(SessionSummarySchema),
    has_more: z.boolean(),
    /** The cursor of the next page (`before`), null on the last one. */
    next_before: z.string().nullable(),
  })
  .strict();
export type SessionList = z.infer<typeof SessionListSchema>;

export const SessionsQuerySchema = z
  .object({
    before: z
      .string()
      .regex(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z~[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/,
        'a cursor from next_before',
      )
      .transform((cursor) => ({ createdAt: cursor.slice(0, 24), sessionId: cursor.slice(25) }))
      .optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

/** The query of `GET /api/sessions/{id}/messages`: a page after the message `after`, at most `limit`. */
export const MessagesQuerySchema = z
  .object({
    /** The id of the last message read; the page starts after it. */
    after: z
      .string()
      .max(128)
      // A message's id, or a steered one's (taken into a running turn: `msg_…_000_s…`).
      .regex(/^msg_[0-9A-Za-z]+_\d+(?:_s[0-9A-Za-z]+)?$/, 'a message id (msg_…)')
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

const shapes = new WeakMap<z.ZodType, Shape>();
/** A schema's field names, read from it once. */
function contractShapeOf(schema: z.ZodType): Shape {
  let shape = shapes.get(schema);
  if (!shape) {
    shape = shapeOf(schema);
    shapes.set(schema, shape);
  }
  return shape;
}

/**
 * Parses a body whose contract field names may be camelCase or snake_case: they are normalised
 * to snake_case (the host's own keys are left alone), then validated strictly. Errors name the
 * field as the host spelled it.
 */
function parseContract<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throwIssues([{ path: [], message: 'Expected a JSON object' }], what);
  }
  // Bounded before any walk: normalisation, the schema's size checks and rendering all recurse.
  checkDepth(value, what);
  const renames: Renames = new Map();
  const issues: Parameters<typeof throwIssues>[0] = [];
  const normalized = normalizeKeys(value, contractShapeOf(schema), [], renames, issues);
  if (issues.length > 0) throwIssues(issues, what);
  return parseOrThrow(schema, normalized, what, (path) => pathAsSent(path, renames));
}

/** A chat request, validated and normalised. */
export function parseChatRequest(value: unknown): ChatRequest {
  return parseContract(ChatRequestSchema, value, 'message');
}

/** A join request, validated and normalised. */
export function parseJoinRequest(value: unknown): JoinRequest {
  return parseContract(JoinRequestSchema, value, 'join request');
}

/** host_context alone, validated and normalised (what the session stores). */
export function parseHostContext(value: unknown) {
  return parseContract(HostContextSchema, value, 'host_context');
}

/** An answer to a pending request: `POST /api/sessions/{id}/actions/{actionId}`, `assistant_resolve_action`. */
export const ResolveRequestSchema = z
  .object({
    id: RequestIdSchema.optional(),
    decision: z.enum(['approve', 'deny']).optional(),
    comment: z.string().max(10_000).optional(),
    approved_args: z.record(z.string(), z.unknown()).optional(),
    remember_for_session: z.boolean().optional(),
    answers: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
    output: z.unknown().optional(),
    error: z.string().max(10_000).optional(),
  })
  .strict();
export type ResolveRequest = z.infer<typeof ResolveRequestSchema>;

/** An answer, validated and normalised (`approvedArgs` and `approved_args` are the same field). */
export function parseResolveRequest(value: unknown): ResolveRequest {
  return parseContract(ResolveRequestSchema, value, 'answer');
}

/** Which request an `assistant_resolve_action` frame answers (its other fields are the answer). */
export const ResolveTargetSchema = z.object({ session_id: SessionIdSchema, action_id: IdSchema }).strict();

/** Which request an `assistant_resolve_action` frame answers. */
export function parseResolveTarget(value: unknown): { session_id: string; action_id: string } {
  return parseOrThrow(ResolveTargetSchema, value, 'answer');
}

/** The body of an `assistant_cancel` frame: which session it stops. */
// Like every frame, it may carry an `id`, which comes back as `request_id`.
export const SessionTargetSchema = z
  .object({ session_id: SessionIdSchema, id: RequestIdSchema.optional() })
  .strict();

/** The body of `POST /api/sessions/{id}/continue` (optional): the request's id, for a retry. */
export const ContinueRequestSchema = z.object({ id: RequestIdSchema.optional() }).strict();

/** A continue's body, validated (an empty body is `{}`). */
export function parseContinueRequest(value: unknown): { id?: string } {
  return parseOrThrow(ContinueRequestSchema, value, 'continue');
}

/** Which session an `assistant_continue` frame continues, and the frame's id (its request id). */
export function parseContinueTarget(value: unknown): { session_id: string; id?: string } {
  return parseOrThrow(SessionTargetSchema, value, 'continue');
}

/** Which session an `assistant_cancel` frame stops. */
export function parseSessionTarget(value: unknown): { session_id: string } {
  const target = parseOrThrow(SessionTargetSchema, value, 'cancel');
  return { session_id: target.session_id };
}
