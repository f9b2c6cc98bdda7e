import * as z from 'zod';
import { ResolutionSchema } from '../contract/answers.ts';
import { AgentSummarySchema } from '../contract/index.ts';
import { ERROR_TYPES } from '../errors/index.ts';
import { SESSION_EVENTS, type SessionEventType } from '../events/log.ts';
import { ERROR_CODE_LIST, ERROR_DESCRIPTIONS } from './errors.ts';

/**
 * The shapes of the answers the documents describe with a schema: each is checked against the
 * server's real answers by test/e2e/contract-documents.test.ts. Other answers are described in
 * words only (docs/protocol.md).
 */

const IssueSchema = z
  .object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })
  .strict();

/** What a spent budget's refusal adds to its error. */
const budgetFields = {
  spent_usd: z.number().optional(),
  budget_usd: z.number().optional(),
  scope: z.enum(['session', 'user', 'tenant']).optional(),
};

/**
 * An error's code: one of lib/errors' map, each with its words as in docs/protocol.md's error table
 * (Redoc shows `x-enumDescriptions` beside the values), their links to the table's document made
 * from beside it.
 */
const ErrorCodeSchema = z.enum(ERROR_CODE_LIST).meta({
  'x-enumDescriptions': Object.fromEntries(
    Object.entries(ERROR_DESCRIPTIONS).map(([code, words]) => [
      code,
      words.replaceAll('](#', '](protocol.md#'),
    ]),
  ),
});

/** Every error Switchboard answers over HTTP (`errorResponse` in lib/transport/responses.ts). */
export const ErrorResponseSchema = z
  .object({
    error: z
      .object({
        code: ErrorCodeSchema,
        message: z.string(),
        issues: z.array(IssueSchema).optional(),
        /** `session_busy`: the turn the message waits on. */
        run_id: z.string().optional(),
        ...budgetFields,
      })
      .strict(),
  })
  .strict();

/** An answer of API Gateway itself, before or after the function (`{"message": "Unauthorized"}`). */
export const GatewayErrorSchema = z.object({ message: z.string() }).strict();

/** A message accepted: `202` of `POST /api/chat`, and the fields of `assistant:accepted`. */
const acceptedFields = {
  request_id: z.string(),
  session_id: z.string(),
  run_id: z.string(),
  message_id: z.string(),
  assistant_message_id: z.string(),
  status: z.literal('queued'),
  duplicate: z.boolean(),
  interrupted: z.array(z.string()).optional(),
};
export const AcceptedSchema = z.object(acceptedFields).strict();

/** The answer to `assistant_message`. */
export const AcceptedFrameSchema = z
  .object({ type: z.literal('assistant:accepted'), ...acceptedFields })
  .strict();

/** An answer accepted: `202` of `POST /api/sessions/{id}/actions/{actionId}`, and the fields of `assistant:resolved`. */
const resolvedFields = {
  session_id: z.string(),
  action_id: z.string(),
  /** The run that hands the answer to the agent's `resolveAction`. */
  run_id: z.string(),
  status: z.literal('queued'),
  /** The answer as recorded. */
  decision: ResolutionSchema.nullable(),
  duplicate: z.boolean(),
};
export const ResolveAcceptedSchema = z.object(resolvedFields).strict();
export type ResolveAccepted = z.infer<typeof ResolveAcceptedSchema>;

/** The answer to `assistant_resolve_action`. */
export const ResolvedFrameSchema = z
  .object({ type: z.literal('assistant:resolved'), ...resolvedFields })
  .strict();

/** The answer to `assistant_join_session`, after the stored events. */
export const JoinedFrameSchema = z
  .object({
    type: z.literal('assistant:joined'),
    session_id: z.string(),
    replayed_through: z.number().int().nonnegative(),
    last_seq: z.number().int().nonnegative(),
  })
  .strict();

/** The answer to any frame that cannot be applied (`errorFrame` in lib/transport/responses.ts). */
export const ErrorFrameSchema = z
  .object({
    type: z.literal('assistant:error'),
    request_id: z.string().optional(),
    error: z
      .object({
        type: z.enum(ERROR_TYPES),
        code: ErrorCodeSchema,
        message: z.string(),
        path: z.array(z.union([z.string(), z.number()])),
        issues: z.array(IssueSchema).optional(),
        retry_after: z.number().optional(),
        run_id: z.string().optional(),
        ...budgetFields,
      })
      .strict(),
  })
  .strict();

/** What every event of a session's log has besides its `type` and `data`. */
const envelope = {
  seq: z.number().int().min(1),
  session_id: z.string(),
  run_id: z.string().optional(),
  at: z.string(),
};

const EVENT_TYPES = Object.keys(SESSION_EVENTS) as [SessionEventType, ...SessionEventType[]];

/** An event too large for a frame: its envelope with `data: {}`; read it whole at `href`. */
const TruncatedEventSchema = z
  .object({
    ...envelope,
    type: z.enum(EVENT_TYPES),
    data: z.object({}).strict(),
    truncated: z.literal(true),
    href: z.string(),
  })
  .strict();

/** One event of a session's log, on the socket and over HTTP: each type with its own `data`. */
export const EventSchema = z.union([
  ...EVENT_TYPES.map((type) =>
    z.object({ ...envelope, type: z.literal(type), data: SESSION_EVENTS[type] }).strict(),
  ),
  TruncatedEventSchema,
]);

/** The server→client frame that carries events. */
export const EventsFrameSchema = z
  .object({ type: z.literal('events'), events: z.array(EventSchema) })
  .strict();

/** `GET /api/sessions/{id}/events`. */
export const EventsPageSchema = z
  .object({
    session_id: z.string(),
    events: z.array(EventSchema),
    last_seq: z.number().int().nonnegative(),
    has_more: z.boolean(),
  })
  .strict();

/** `200` of `GET /api/agents`: what hosts may read of the agents the caller may talk to. */
export const AgentListSchema = z
  .object({
    agents: z.array(AgentSummarySchema),
    /** The agent a message without `agent_id` goes to (the only one registered); null when there is none. */
    default_agent_id: z.string().nullable(),
  })
  .strict();
export type AgentList = z.infer<typeof AgentListSchema>;
