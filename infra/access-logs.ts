import { RemovalPolicy } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import type { CfnStage, IStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * Whether the WebSocket stage writes an access log, which API Gateway does with the account's
 * API Gateway CloudWatch role (one setting per account and region, shared by every REST and WebSocket
 * API there). Synth cannot see the account, so the stack is told:
 *
 * - `'off'`: no WebSocket access log; deploys in any account.
 * - `'account-role-exists'`: the access log, relying on the role being set already (else the stage
 *   fails to deploy with "CloudWatch Logs role ARN must be set in account settings to enable logging").
 * - `'create-account-role'`: the access log, and a role of this stack set as the account's role
 *   (`AWS::ApiGateway::Account`): it replaces whatever role the account had, for every API in the region.
 */
export type WebSocketAccessLogs = 'off' | 'account-role-exists' | 'create-account-role';

/** Every value {@link WebSocketAccessLogs} may take. */
export const WEBSOCKET_ACCESS_LOGS: readonly WebSocketAccessLogs[] = [
  'off',
  'account-role-exists',
  'create-account-role',
];

/** The AWS managed policy API Gateway's documentation gives the account's CloudWatch role. */
export const API_GATEWAY_LOGS_POLICY = 'service-role/AmazonAPIGatewayPushToCloudWatchLogs';

/**
 * Sets the account's API Gateway CloudWatch role (`AWS::ApiGateway::Account`) to a new role that API
 * Gateway assumes to write logs, and makes `stage` wait for it. The role is retained when the stack is
 * deleted: the account setting outlives the stack, and a deleted role would break every API's logging.
 */
export function createApiGatewayAccountRole(scope: Construct, stage: IStage): Role {
  const role = new Role(scope, 'ApiGatewayCloudWatchRole', {
    assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
    description: "The account's API Gateway CloudWatch role (set by Switchboard's webSocketAccessLogs)",
    managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName(API_GATEWAY_LOGS_POLICY)],
  });
  role.applyRemovalPolicy(RemovalPolicy.RETAIN);
  const account = new CfnAccount(scope, 'ApiGatewayAccount', { cloudWatchRoleArn: role.roleArn });
  account.applyRemovalPolicy(RemovalPolicy.RETAIN);
  (stage.node.defaultChild as CfnStage).addResourceDependency(account);
  return role;
}

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
  /** The KMS key of the log group (the construct's `logEncryptionKey`). @default CloudWatch Logs' own */
  readonly encryptionKey?: IKey;
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
    encryptionKey: options.encryptionKey,
  });
  const cfnStage = stage.node.defaultChild as CfnStage;
  cfnStage.accessLogSettings = {
    destinationArn: logGroup.logGroupArn,
    format: JSON.stringify(options.format),
  };
  return logGroup;
}
