import type { CodeOf, ErrorCode, StatusOf, TypeOf } from './codes.ts';

/** One problem with a request, at a field path (`['host_context', 'view', 'name']`). */
export interface Issue {
  path: (string | number)[];
  message: string;
}

/**
 * Base of every error Switchboard reports to a caller. It carries a stable `code` of
 * `ERROR_CODES` (lib/errors/codes.ts), and the HTTP status and WebSocket error type that the map
 * gives that code: the compiler refuses a code the map does not list, and a status or type other
 * than the code's. `lib/transport` is the one place that turns it into a response or a frame.
 */
export class SwitchboardError<C extends ErrorCode = ErrorCode> extends Error {
  // Declared, then set in the constructor: the same fields as parameter properties, without the
  // field definitions those add to the bundles.
  declare readonly code: C;
  declare readonly status: StatusOf<C>;
  declare readonly type: TypeOf<C>;
  declare readonly issues: Issue[];

  constructor(code: C, message: string, status: StatusOf<C>, type: TypeOf<C>, issues: Issue[] = []) {
    super(message);
    this.code = code;
    this.status = status;
    this.type = type;
    this.issues = issues;
    this.name = new.target.name;
  }
}

/** A request that does not match the contract: 422 with the field paths. */
export class ValidationError extends SwitchboardError<CodeOf<422, 'validation'>> {
  constructor(message: string, issues: Issue[] = [], code: CodeOf<422, 'validation'> = 'validation_error') {
    super(code, message, 422, 'validation', issues);
  }
}

/** A request bigger than the route takes: 413 with the field path, the code naming what was too big. */
export class PayloadTooLargeError extends SwitchboardError<CodeOf<413, 'validation'>> {
  constructor(code: CodeOf<413, 'validation'>, message: string, issues: Issue[] = []) {
    super(code, message, 413, 'validation', issues);
  }
}

/** A body that is not JSON at all: 400 (a WebSocket frame's at its path `[]`). */
export class MalformedRequestError extends SwitchboardError<'invalid_json'> {
  constructor(message: string, issues: Issue[] = []) {
    super('invalid_json', message, 400, 'validation', issues);
  }
}

/** JSON that nests objects and arrays deeper than the contract takes: 422 at the path where it went too deep. */
export class TooDeepError extends SwitchboardError<'too_deep'> {
  constructor(message: string, issues: Issue[] = []) {
    super('too_deep', message, 422, 'validation', issues);
  }
}

/** A body whose content type the route does not take: 415 at `content-type`. */
export class UnsupportedMediaTypeError extends SwitchboardError<'unsupported_media_type'> {
  constructor(message: string, issues: Issue[] = []) {
    super('unsupported_media_type', message, 415, 'validation', issues);
  }
}

/** Something that does not exist, or that the caller may not see (never tell the two apart). */
export class NotFoundError extends SwitchboardError<CodeOf<404, 'not_found'>> {
  constructor(code: CodeOf<404, 'not_found'>, message: string, issues: Issue[] = []) {
    super(code, message, 404, 'not_found', issues);
  }
}

/**
 * A session that does not exist, or that is not the caller's: the one answer for both, so that no
 * one learns whether another owner's session exists. `id` is the session as the caller named it.
 */
export class SessionNotFoundError extends NotFoundError {
  constructor(id: string, issues: Issue[] = []) {
    super('session_not_found', `Session "${id}" does not exist.`, issues);
  }
}

/** A message names an agent that is not registered (for this caller): 404 at `agent_id`. */
export class AgentNotFoundError extends NotFoundError {
  constructor(agentId: string) {
    super('agent_not_found', `No agent "${agentId}" is registered.`, [
      { path: ['agent_id'], message: 'unknown agent' },
    ]);
  }
}

/**
 * A queued turn whose agent is no longer registered when it runs (the deployment changed between
 * the message and its turn): the turn ends in error. Not the host's fault, so not a 404.
 */
export class AgentUnavailableError extends SwitchboardError<'agent_unavailable'> {
  constructor(agentId: string) {
    super('agent_unavailable', `Agent "${agentId}" is no longer registered.`, 500, 'internal');
  }
}

/** The agent threw while running a turn: the turn ends in error; its own message stays in the log. */
export class AgentFailedError extends SwitchboardError<'agent_error'> {
  constructor(message = 'The agent failed while running the turn.') {
    super('agent_error', message, 500, 'internal');
  }
}

/** What a caller is told of a failure on the runtime's side (and of any 500 under `maskServerErrors`). */
export const SERVER_ERROR_MESSAGE = 'Something went wrong on our side.';

/** Something failed on the runtime's side; the detail is in the log, never in the answer. */
export class InternalError extends SwitchboardError<'internal_error'> {
  constructor() {
    super('internal_error', SERVER_ERROR_MESSAGE, 500, 'internal');
  }
}

/** The caller is known but may not do this (a reviewer the agent's hook refused): 403. */
export class ForbiddenError extends SwitchboardError<'forbidden'> {
  constructor(message: string) {
    super('forbidden', message, 403, 'auth');
  }
}

/** A request that conflicts with the session's state: 409, WebSocket type `session`. */
export class SessionConflictError extends SwitchboardError<CodeOf<409, 'session'>> {
  constructor(code: CodeOf<409, 'session'>, message: string) {
    super(code, message, 409, 'session');
  }
}

/**
 * A message sent with `on_busy: "reject"` while a turn of its session is queued or running: 409
 * `session_busy`. `runId` names that turn (the running one, else the first queued); the transport
 * adds it as `run_id`.
 */
export class SessionBusyError extends SessionConflictError {
  constructor(
    message: string,
    readonly runId: string,
  ) {
    super('session_busy', message);
  }
}

/**
 * A caller over one of the runtime's rate limits: 429 `rate_limited`, WebSocket type `limit`. The
 * transport adds `Retry-After` (HTTP) or `retry_after` (WebSocket) from `retryAfterSeconds`.
 */
export class RateLimitedError extends SwitchboardError<'rate_limited'> {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rate_limited', message, 429, 'limit');
  }
}

/**
 * A new message to a session (or from an owner, or a tenant) whose budget is spent: 402
 * `budget_exceeded`, WebSocket type `limit`. The message states what was spent and the budget; the
 * transport adds them as `spent_usd`, `budget_usd` and `scope`.
 */
export class BudgetExceededError extends SwitchboardError<'budget_exceeded'> {
  constructor(
    readonly scope: 'session' | 'user' | 'tenant',
    readonly spentUsd: number,
    readonly budgetUsd: number,
  ) {
    const whose = { session: 'This session', user: 'You', tenant: 'Your organisation' }[scope];
    const budget = scope === 'session' ? 'its budget' : 'the daily limit';
    super(
      'budget_exceeded',
      `${whose} spent $${usd(spentUsd)}${scope === 'session' ? '' : ' in the last 24 hours'}, reaching ${budget} of $${usd(budgetUsd)}: no new message is taken.`,
      402,
      'limit',
    );
  }
}

/** Dollars as people read them: cents, and the digits after them where a small cost has some. */
const usd = (value: number) =>
  Number.isInteger(value * 100) ? value.toFixed(2) : String(Number(value.toPrecision(6)));

/**
 * A new message from a tenant an operator suspended (`switchboard tenant suspend`): 403
 * `tenant_suspended`, WebSocket type `auth`, until the tenant is resumed. Nothing of the message is stored.
 */
export class TenantSuspendedError extends SwitchboardError<'tenant_suspended'> {
  constructor(tenant: string) {
    super('tenant_suspended', `Tenant "${tenant}" is suspended: no new message is taken.`, 403, 'auth');
  }
}

/** A caller without an identity where one is required: 401. */
export class UnauthorizedError extends SwitchboardError<'unauthorized'> {
  constructor(message = 'Authentication is required.') {
    super('unauthorized', message, 401, 'auth');
  }
}

/**
 * A bearer token that does not prove who the caller is: missing, malformed, expired, not yet valid,
 * signed by another key or algorithm, from another issuer or for another audience. 401; the message
 * says which check failed and never quotes the token.
 */
export class InvalidTokenError extends SwitchboardError<'invalid_token'> {
  constructor(message: string) {
    super('invalid_token', message, 401, 'auth');
  }
}

/**
 * The server's `resolveContext` returned something the runtime cannot use (no user id, data that is
 * not a JSON object, a tenant that is not a string). A fault of the deployment, not of the caller.
 */
export class InvalidContextError extends SwitchboardError<'invalid_context'> {
  constructor(message: string, issues: Issue[] = []) {
    super('invalid_context', message, 500, 'internal', issues);
  }
}

/** An agent's invoke or resolveAction returned something the runtime cannot use. */
export class InvalidHostResultError extends SwitchboardError<'invalid_host_result'> {
  constructor(message: string, issues: Issue[] = []) {
    super('invalid_host_result', message, 500, 'internal', issues);
  }
}

/** A host-agent definition that cannot work: thrown at registration, never at the first message. */
export class AgentDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentDefinitionError';
  }
}

/**
 * DynamoDB kept handing back part of a batch write (it does so when the table throttles): the work
 * is unfinished and must be retried later, as a whole, by whoever asked for it.
 */
export class UnprocessedItemsError extends SwitchboardError<'service_busy'> {
  constructor(readonly remaining: number) {
    super(
      'service_busy',
      `DynamoDB left ${remaining} items of a batch write unprocessed; try again later.`,
      503,
      'internal',
    );
  }
}

/** A message id that names no message of the session: 404, the issue at the field or path parameter. */
export class MessageNotFoundError extends NotFoundError {
  constructor(id: string, issues: Issue[] = []) {
    super(
      'message_not_found',
      `Message "${id.length > 64 ? `${id.slice(0, 64)}…` : id}" does not exist.`,
      issues,
    );
  }
}

/** The most characters of a hook's own message that an answer carries. */
const HOOK_MESSAGE_CHARS = 1_000;

/**
 * The agent's `feedback` hook or the server's `onFeedback` failed with something other than a
 * Switchboard error: 500, with the hook's own message (the seed fails the request "with its
 * error"; `maskServerErrors` hides it like any 500's). The rating is stored; sending the same
 * request again is safe.
 */
export class FeedbackHookError extends SwitchboardError<'feedback_failed'> {
  constructor(hook: 'feedback' | 'onFeedback', detail?: string) {
    const which = hook === 'feedback' ? "agent's feedback hook" : "server's onFeedback hook";
    const said = detail ? `: ${detail.slice(0, HOOK_MESSAGE_CHARS)}` : '';
    super(
      'feedback_failed',
      `The rating was stored, but the ${which} failed${said}. Sending the same request again is safe.`,
      500,
      'internal',
    );
  }
}

/** A silent host decision (`output_mode: "host_tools"`) that proposed several host actions: nothing is actionable. */
export class InvalidDecisionError extends SwitchboardError<'invalid_decision'> {
  constructor(count: number) {
    super(
      'invalid_decision',
      `The agent proposed ${count} host actions; a decision holds or proposes exactly one.`,
      500,
      'internal',
    );
  }
}
