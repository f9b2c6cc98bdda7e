import type { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { InternalError, RateLimitedError, SessionBusyError, SwitchboardError } from '../errors/index.ts';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A JSON response of the HTTP API. */
export function json(statusCode: number, body: unknown): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: JSON_HEADERS, body: JSON.stringify(body) };
}

/**
 * Any thrown value as a Switchboard error. Unknown ones are logged with their stack and masked
 * as `internal_error`: a caller never sees a stack trace.
 */
export function asSwitchboardError(error: unknown, logger: Logger): SwitchboardError {
  if (error instanceof SwitchboardError) return error;
  logger.error('Unhandled error', {
    error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
  return new InternalError();
}

/** The one mapping of errors to HTTP: `{ error: { code, message, issues? } }` with the error's status. */
export function errorResponse(error: unknown, logger: Logger): APIGatewayProxyStructuredResultV2 {
  const e = asSwitchboardError(error, logger);
  const response = json(e.status, {
    error: {
      code: e.code,
      message: e.message,
      ...(e.issues.length > 0 && { issues: e.issues }),
      ...(e instanceof SessionBusyError && { run_id: e.runId }),
    },
  });
  if (e instanceof RateLimitedError)
    response.headers = { ...response.headers, 'retry-after': String(e.retryAfterSeconds) };
  return response;
}

/** The one mapping of errors to WebSocket: an `assistant:error` frame. */
export function errorFrame(error: unknown, logger: Logger, requestId?: string): Record<string, unknown> {
  const e = asSwitchboardError(error, logger);
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
    },
  };
}
