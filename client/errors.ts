import type { ErrorCode } from '../lib/errors/codes.ts';

/**
 * One problem with a field: its path and what is wrong, as the server's `issues` name them.
 *
 * @example
 * ```ts
 * const issue: Issue = { path: ['approved_args', 'amount'], message: 'must be <= 100' };
 * ```
 */
export interface Issue {
  path: (string | number)[];
  message: string;
}

/**
 * The codes the client gives errors that are not Switchboard's answers: API Gateway's own
 * (`gateway_error`: a throttled request, a body over its limit, a timeout, `{ message }` and no code)
 * and a presigned upload that storage refused (`upload_failed`). None is a server code: a test keeps
 * them apart from `ERROR_CODES`.
 */
export const CLIENT_ERROR_CODES = ['gateway_error', 'upload_failed'] as const;

/** One of {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * The code of a {@link SwitchboardApiError}: one of the server's (its error table, docs/protocol.md),
 * or one of the client's own.
 *
 * @example
 * ```ts
 * const retryable = (code: ApiErrorCode) => code === 'rate_limited' || code === 'gateway_error';
 * ```
 */
export type ApiErrorCode = ErrorCode | ClientErrorCode;

/**
 * An error answer of the API (`{ error: { code, message, issues? } }`), or of API Gateway itself
 * (`{ message }`, code `gateway_error`). `status` is the HTTP status; `retryAfter` the seconds a
 * `429` asks to wait; `body` the whole error object (`run_id` of a `session_busy`, `spent_usd` …).
 *
 * @example
 * ```ts
 * try {
 *   await session.send('hello', { onBusy: 'reject' });
 * } catch (e) {
 *   if (e instanceof SwitchboardApiError && e.code === 'session_busy') showBusy(e.body.run_id);
 * }
 * ```
 */
export class SwitchboardApiError extends Error {
  override name = 'SwitchboardApiError';
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly issues: Issue[] = [],
    readonly body: Record<string, unknown> = {},
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/**
 * Edited arguments of an approval that do not fit the request's `argsSchema`, found by the client
 * before anything is sent. `issues` name each field under `approved_args`, as the server's `422` would.
 *
 * @example
 * ```ts
 * try {
 *   await session.approve('req_wire', { args: { amount: 500 } });
 * } catch (e) {
 *   if (e instanceof ArgsValidationError) form.showErrors(e.issues);
 * }
 * ```
 */
export class ArgsValidationError extends Error {
  override name = 'ArgsValidationError';
  constructor(readonly issues: Issue[]) {
    super(
      `Invalid approved_args: ${issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
    );
  }
}

/**
 * A wait that did not end in time (`session.next`, `session.waitForTurn`).
 *
 * @example
 * ```ts
 * await session.waitForTurn(runId, { timeoutMs: 30_000 }).catch((e) => e instanceof TimeoutError && retry());
 * ```
 */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

/**
 * A wait that its session's closing ended (`session.next`, `session.waitForTurn` pending when
 * `session.close()` or `client.close()` is called): nothing more will be delivered to it.
 *
 * @example
 * ```ts
 * await session.waitForTurn(runId).catch((e) => { if (!(e instanceof ClosedError)) throw e; });
 * ```
 */
export class ClosedError extends Error {
  override name = 'ClosedError';
}
