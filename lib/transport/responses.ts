import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  BudgetExceededError,
  InternalError,
  RateLimitedError,
  SERVER_ERROR_MESSAGE,
  SessionBusyError,
  SwitchboardError,
} from '../errors/index.ts';

/** How errors are shown: `maskServerErrors` makes every 500's message generic (the detail is logged). */
export interface ErrorOptions {
  maskServerErrors?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON response of the HTTP API. */
export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

/**
 * Any thrown value as a Switchboard error. Unknown ones are logged with their stack and masked
 * as `internal_error`: a caller never sees a stack trace.
 */
export function asSwitchboardError(
  error: unknown,
  logger: Logger,
  options: ErrorOptions = {},
): SwitchboardError {
  if (error instanceof SwitchboardError) {
    if (!(options.maskServerErrors && error.status >= 500)) return error;
    // Masked: the caller gets the code and a generic message; the detail stays in the log.
    logger.error('Server error (masked for the caller)', {
      code: error.code,
      message: error.message,
      issues: error.issues,
    });
    return new SwitchboardError(error.code, SERVER_ERROR_MESSAGE, error.status, error.type);
  }
  logger.error('Unhandled error', {
    error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
  return new InternalError();
}

/** What a refusal for a spent budget adds to its error: what was spent, the budget, and whose. */
const budgetOf = (e: SwitchboardError) =>
  e instanceof BudgetExceededError && { spent_usd: e.spentUsd, budget_usd: e.budgetUsd, scope: e.scope };

/** The one mapping of errors to HTTP: `{ error: { code, message, issues? } }` with the error's status. */
export function errorResponse(
  error: unknown,
  logger: Logger,
  options: ErrorOptions = {},
): APIGatewayProxyStructuredResultV2 {
  const e = asSwitchboardError(error, logger, options);
  const response = json(e.status, {
    error: {
      code: e.code,
      message: e.message,
      ...(e.issues.length > 0 && { issues: e.issues }),
      ...(e instanceof SessionBusyError && { run_id: e.runId }),
      ...budgetOf(e),
    },
  });
  if (e instanceof RateLimitedError)
    response.headers = { ...response.headers, 'retry-after': String(e.retryAfterSeconds) };
  return response;
}

/** The one mapping of errors to WebSocket: an `assistant:error` frame. */
export function errorFrame(
  error: unknown,
  logger: Logger,
  requestId?: string,
  options: ErrorOptions = {},
): Record<string, unknown> {
  const e = asSwitchboardError(error, logger, options);
  return {
    type: 'assistant:error',
    ...(requestId && { request_id: requestId }),
    error: {
      type: e.type,
      code: e.code,
      message: e.message,
      path: e.issues[0]?.path ?? [],
      ...(e.issues.length > 0 && { issues: e.issues }),
      ...(e instanceof RateLimitedError && { retry_after: e.retryAfterSeconds }),
      ...(e instanceof SessionBusyError && { run_id: e.runId }),
      ...budgetOf(e),
    },
  };
}
