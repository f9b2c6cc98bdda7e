import type { RemovalPolicy } from 'aws-cdk-lib';
import type { CfnStage, IStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * What an HTTP API access log line holds: ids, the route template, status, timings and errors. Never the
 * path's query string, a header (`Authorization` carries the bearer token) or a body: `$context.routeKey`
 * is the route's template (`GET /api/sessions/{id}`), not the URL that was called.
 */
export const HTTP_ACCESS_LOG_FORMAT = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
} as const;

/**
 * What a WebSocket API access log line holds. A host's token travels in the `$connect` query string or
 * in `Sec-WebSocket-Protocol`, so neither the query string nor any header is logged; frames are not
 * logged either (they hold the host's messages).
 */
export const WEBSOCKET_ACCESS_LOG_FORMAT = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  connectionId: '$context.connectionId',
  eventType: '$context.eventType',
  routeKey: '$context.routeKey',
  status: '$context.status',
  integrationLatency: '$context.integrationLatency',
  authorizerError: '$context.authorizer.error',
  error: '$context.error.message',
} as const;

/** Where and how long a stage's access log is kept. */
export interface AccessLogOptions {
  /** The JSON fields of one line: {@link HTTP_ACCESS_LOG_FORMAT} or {@link WEBSOCKET_ACCESS_LOG_FORMAT}. */
  readonly format: Readonly<Record<string, string>>;
  /** How long lines are kept (the construct's `logRetention`). */
  readonly retention: RetentionDays;
  /** What happens to the log group when the stack is deleted (the construct's `removalPolicy`). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * Gives `stage` an access log: one JSON line per request (HTTP) or per connect, frame and disconnect
 * (WebSocket) in a log group of its own with the construct's retention. Set on the stage's CloudFormation
 * resource so the stage itself is built where it always was.
 *
 * @example
 * ```ts
 * addAccessLog(this, 'HttpApiAccessLogs', httpApi.defaultStage, {
 *   format: HTTP_ACCESS_LOG_FORMAT,
 *   retention: RetentionDays.ONE_MONTH,
 *   removalPolicy: RemovalPolicy.RETAIN,
 * });
 * ```
 */
export function addAccessLog(
  scope: Construct,
  id: string,
  stage: IStage,
  options: AccessLogOptions,
): LogGroup {
  const logGroup = new LogGroup(scope, id, {
    retention: options.retention,
    removalPolicy: options.removalPolicy,
  });
  const cfnStage = stage.node.defaultChild as CfnStage;
  cfnStage.accessLogSettings = {
    destinationArn: logGroup.logGroupArn,
    format: JSON.stringify(options.format),
  };
  return logGroup;
}
