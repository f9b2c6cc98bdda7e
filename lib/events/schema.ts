import * as z from 'zod';

/**
 * The domain events Switchboard publishes on the deployment's EventBridge bus: each detail-type
 * with the zod schema of its `detail`, the one description of the event (docs/operations.md,
 * "Domain events", documents the same). Every event has source {@link EVENT_SOURCE}.
 */
export const EVENT_SOURCE = 'switchboard';

/** The version of the details below; a change that is not an addition raises it. */
const VersionSchema = z.literal(1);

/** Who and what a session is: enough to find it, and to route by owner, tenant or agent. */
const SessionFields = {
  version: VersionSchema,
  /** The host's own id of the session, as its owner's apps name it. */
  sessionId: z.string(),
  /**
   * The session's ref (`GET /api/sessions/{id}`'s `ref`): how anyone but its owner names it, e.g. a
   * reviewer answering from Slack.
   */
  sessionRef: z.string(),
  owner: z.string(),
  /** The owner's tenant; null when the authoriser names none. */
  tenant: z.string().nullable(),
  agentId: z.string(),
};

/** The pause: which request, asked by which run on which message, and where it is answered. */
const PauseFields = {
  ...SessionFields,
  /** The run that asked, and the assistant message that carries the request. */
  runId: z.string(),
  messageId: z.string(),
  /** The request's id: the `{actionId}` of the answer's path. */
  actionId: z.string(),
  kind: z.enum(['tool_approval', 'user_question', 'client_tool', 'host_tool']),
  /**
   * Where the request is answered: `POST` this path of the HTTP API with the answer's body. A
   * host tool call is answered by a continuation instead (`POST /api/chat` with `tool_call_id`).
   */
  answerPath: z.string(),
  /** When the request lapses (ISO 8601); an answer after it is refused (409 `action_expired`). */
  expiresAt: z.string(),
};

/** `Pause Opened`: a turn paused on a request (an approval, a question, a client or host tool call). */
export const PauseOpenedSchema = z.object({
  ...PauseFields,
  /**
   * The request as the agent made it (title, toolName, args, questions…); null when it would make
   * the event larger than EventBridge takes (`requestOmitted` is then true): read it from the session.
   */
  request: z.record(z.string(), z.unknown()).nullable(),
  requestOmitted: z.boolean(),
});

/** `Pause Expiring`: an open request lapses within the configured lead (`events.expiringLeadMinutes`). */
export const PauseExpiringSchema = z.object({
  ...PauseFields,
  leadMinutes: z.number().int(),
});

/** `Pause Resolved`: a request was answered, or withdrawn or superseded without an answer. */
export const PauseResolvedSchema = z.object({
  ...PauseFields,
  /** resolved: answered; cancelled: withdrawn by the agent's next result or by a cancel; superseded: a new message replaced a host call. */
  status: z.enum(['resolved', 'cancelled', 'superseded']),
  /** Who decided: the answering user, or `system`. */
  actor: z.string(),
  channel: z.enum(['api', 'system', 'timeout']),
  /** An approval's decision; null for other answers and for a request decided without one. */
  decision: z.enum(['approve', 'deny']).nullable(),
  resolvedAt: z.string(),
});

/** `Pause Lapsed`: nobody answered in time and the sweep applied the agent's `hitl.onTimeout`. */
export const PauseLapsedSchema = z.object({
  ...PauseFields,
  /** denied: handed to resolveAction as a refusal (`onTimeout: 'deny'`); withdrawn: `onTimeout: 'cancel'`. */
  outcome: z.enum(['denied', 'withdrawn']),
  resolvedAt: z.string(),
});

/** `Turn Failed`: a turn ended with an error (the agent's, an invalid result, a crash, a lost worker). */
export const TurnFailedSchema = z.object({
  ...SessionFields,
  runId: z.string(),
  status: z.enum(['error', 'incomplete']),
  stopReason: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

/** `Budget Reached`: a turn's cost reached a budget: its session's, or its owner's or tenant's rolling day. */
export const BudgetReachedSchema = z.object({
  ...SessionFields,
  runId: z.string(),
  scope: z.enum(['session', 'user', 'tenant']),
  /** The limit reached, in US dollars. */
  limitUsd: z.number(),
  /** What this turn cost, and what the session has spent with it. */
  turnCostUsd: z.number(),
  sessionSpentUsd: z.number(),
});

/**
 * `Operator Action`: an operator suspended or resumed a tenant, erased an owner's or a tenant's
 * data, or added to one session's budget, with the operator command (`switchboard tenant suspend`,
 * `erase`, `budget`): the audit record of who did it. Published by the command, not by a session's
 * run, so it carries none of the session events' fields (`session` names the one a budget was given).
 */
export const OperatorActionSchema = z.object({
  version: VersionSchema,
  action: z.enum(['tenant_suspended', 'tenant_resumed', 'data_erased', 'session_budget_added']),
  /** Who did it: the command's `--by`, else the local user who ran it. */
  operator: z.string(),
  /** The tenant acted on, or the erased owner's; null for an owner without one. */
  tenant: z.string().nullable(),
  /** The erased owner (`erase --user`); null for a tenant as a whole. */
  owner: z.string().nullable(),
  /** Why, as `--reason` gave it; null without one. */
  reason: z.string().nullable(),
  /** What it reached: sessions erased or whose runs were stopped, files deleted. */
  sessions: z.number().int(),
  files: z.number().int(),
  /** Runs asked to stop (a suspension); null where they are not counted (an erase stops a session's run with it). */
  runsStopped: z.number().int().nullable(),
  /** The session whose budget was added to (its ref); null for the other actions. */
  session: z.string().nullable(),
  /** US dollars added to that session's budget (`budget --add-usd`); null for the other actions. */
  addedUsd: z.number().nullable(),
  at: z.string(),
});

/** Every detail-type, with the schema of its detail. */
export const DOMAIN_EVENTS = {
  'Pause Opened': PauseOpenedSchema,
  'Pause Expiring': PauseExpiringSchema,
  'Pause Resolved': PauseResolvedSchema,
  'Pause Lapsed': PauseLapsedSchema,
  'Turn Failed': TurnFailedSchema,
  'Budget Reached': BudgetReachedSchema,
  'Operator Action': OperatorActionSchema,
} as const;

/** One of {@link DOMAIN_EVENTS}' detail-types. */
export type DetailType = keyof typeof DOMAIN_EVENTS;

/** The detail of one detail-type. */
export type DetailOf<T extends DetailType> = z.infer<(typeof DOMAIN_EVENTS)[T]>;

/** A domain event, before it is published. */
export type DomainEvent = { [T in DetailType]: { detailType: T; detail: DetailOf<T> } }[DetailType];

/** A domain event's detail read back (a rule's target, a test): throws naming the bad field. */
export function parseDetail<T extends DetailType>(detailType: T, detail: unknown): DetailOf<T> {
  return DOMAIN_EVENTS[detailType].parse(detail) as DetailOf<T>;
}
