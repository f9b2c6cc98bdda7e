/**
 * Every cdk-nag finding (AwsSolutions and Serverless packs) that Switchboard's own resources raise on
 * purpose, and why. test/infra/nag.test.ts runs both packs and fails on anything not fixed or listed here.
 *
 * The construct applies these itself: they are about its internals, which a team using it cannot change
 * and should not have to argue again when it runs cdk-nag on its own stack. What follows from a team's
 * choices is left for its own checks to report: no authoriser (AwsSolutions-APIG4 on the HTTP routes and
 * `$connect`) and tracing off (Serverless-LambdaTracing). {@link acknowledgeAnonymousAccess} is for a
 * deployment that is anonymous on purpose, such as the demo.
 *
 * Acknowledgments go through aws-cdk-lib's `Validations`, which cdk-nag 3 reads, so the construct needs no
 * cdk-nag at run time. A wildcard resource is acknowledged finding by finding (`AwsSolutions-IAM5[...]`),
 * never the rule as a whole, so a new wildcard still fails the check.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { WebSocketRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IConstruct } from 'constructs';
import {
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  OBJECT_PREFIXES,
  type ResourceKind,
} from '../lib/config/index.ts';
import { API_GATEWAY_LOGS_POLICY, type WebSocketAccessLogs } from './access-logs.ts';
import type { SwitchboardEntry } from './functions.ts';
import { acknowledgeAnonymousRoutes } from './guard.ts';
import type { Switchboard } from './switchboard.ts';

/** Why a wildcard grant names `*` in its resource, by the kind of resource (see lib/config/permissions.ts). */
const WILDCARD_GRANTS: Partial<Record<ResourceKind, string>> = {
  objects:
    "Object keys are made at run time (one per file, attachment, screenshot and large event); the grant is on this instance's file bucket only, under the key prefixes the function's code uses.",
  connections:
    "Connection ids are made by API Gateway at run time; the grant is ManageConnections on this instance's WebSocket API and stage only.",
};

const XRAY =
  'X-Ray has no resource-level permissions: PutTraceSegments and PutTelemetryRecords (Lambda active tracing) and PutSpans and PutSpansForIndexing (the functions\' spans, exported to X-Ray\'s OTLP endpoint) take Resource "*"; added only when tracing goes to X-Ray. test/infra/iam.test.ts allows no other Resource "*".';

const RUNTIME =
  'Lambda runs the managed Node runtime the stack chose (nodeRuntime: nodejs22.x by default, or nodejs24.x; arm64) on purpose: the bundles target that Node and are tested on it; moving to a newer runtime is a deliberate upgrade, not a default.';

/** Why a function has no dead-letter target for asynchronous invocations, by entry point. */
const NO_ASYNC_DLQ: Record<SwitchboardEntry, string> = {
  http: 'API Gateway invokes this function synchronously; a failed request is answered to its caller, so there is nothing for an asynchronous dead-letter queue to catch.',
  ws: 'API Gateway invokes this function synchronously; a failed frame is answered to its sender, so there is nothing for an asynchronous dead-letter queue to catch.',
  worker:
    "The SQS event source invokes the worker synchronously; a failed turn job is redelivered and then moved to the turns queue's own dead-letter queue.",
  sweep:
    'The sweep is idempotent and runs every minute with no retries; a missed tick holds nothing to replay, since the next tick does the same work.',
  authorizer:
    'API Gateway invokes the $connect authoriser synchronously; a failure refuses the connection to its caller, so there is nothing for an asynchronous dead-letter queue to catch.',
  agui: 'Its function URL invokes it synchronously with a streamed response; a failed run is answered on the stream to its caller, so there is nothing for an asynchronous dead-letter queue to catch.',
};

const WEBSOCKET_LOGS_OFF =
  "webSocketAccessLogs is 'off' (the default): a WebSocket stage's access log needs the account's API Gateway CloudWatch role, an account-wide setting a fresh account lacks. 'account-role-exists' or 'create-account-role' turns it on (docs/deployment.md, Access logs).";

/** What the construct knows that the acknowledgments depend on. */
export interface SwitchboardNagContext {
  /** The `webSocketAccessLogs` prop: with `'off'` the WebSocket stage has no access log. */
  readonly webSocketAccessLogs?: WebSocketAccessLogs;
  /**
   * Whether the spans go to X-Ray (`tracing: true` or `endpoint: 'xray'`): active tracing and the span
   * export add `Resource: "*"` statements to every role. A team's OTLP endpoint adds none.
   */
  readonly xray: boolean;
  /** The resources each kind of grant names, as the roles' policies name them. */
  readonly resourceArns: Readonly<Record<ResourceKind, readonly string[]>>;
}

/**
 * Acknowledges the findings the construct raises by design, each with its reason. Called once by the
 * {@link Switchboard} constructor, after every resource exists.
 */
export function acknowledgeSwitchboardFindings(sb: Switchboard, context: SwitchboardNagContext): void {
  for (const entry of FUNCTION_NAMES) {
    const fn = sb.functionOf(entry);
    if (!fn) continue;
    acknowledge(fn, {
      'AwsSolutions-L1': RUNTIME,
      'Serverless-LambdaLatestVersion': RUNTIME,
      'Serverless-LambdaDLQ': NO_ASYNC_DLQ[entry],
    });
    const role = fn.role;
    if (!role) continue;
    if (context.xray) acknowledge(role, { 'AwsSolutions-IAM5[Resource::*]': XRAY });
    for (const grant of FUNCTION_PERMISSIONS[entry]) {
      const reason = WILDCARD_GRANTS[grant.resource];
      if (!reason) continue;
      // An object grant names only its own prefixes (resourceArns lists them in OBJECT_PREFIXES' order).
      const arns = grant.prefixes
        ? grant.prefixes.map((prefix) => context.resourceArns.objects[OBJECT_PREFIXES.indexOf(prefix)] ?? '')
        : context.resourceArns[grant.resource];
      for (const arn of arns) {
        acknowledge(role, { [`AwsSolutions-IAM5[Resource::${flatten(Stack.of(sb).resolve(arn))}]`]: reason });
      }
    }
  }
  acknowledge(sb.functions.sweep, {
    'Serverless-LambdaAsyncFailureDestination': NO_ASYNC_DLQ.sweep,
  });
  acknowledge(sb.functions.worker, {
    'Serverless-LambdaEventSourceMappingDestination':
      "Lambda offers on-failure destinations for stream and Kafka sources, not SQS: a failed job goes to the turns queue's dead-letter queue (maxReceiveCount).",
  });
  acknowledge(sb.node.findChild('SweepSchedule'), {
    'Serverless-EventBusDLQ': NO_ASYNC_DLQ.sweep,
  });
  acknowledge(sb.deadLetterQueue, {
    'Serverless-SQSRedrivePolicy':
      'This is the dead-letter queue of the turns queue; its messages are kept 14 days for inspection and redrive, and a dead-letter queue of its own would only move them again.',
  });
  acknowledge(sb.refKeySecret, {
    'AwsSolutions-SMG4':
      "The session-ref key keys every session's ref (an HMAC of its owner): a new key would change every ref and orphan every session, so it is never rotated. Only the functions that identify callers may read it, and nothing logs it.",
  });
  acknowledge(sb.bucket, {
    'AwsSolutions-S1':
      "Server access logs would record every presigned upload and download URL with its query string, that is its signature, for as long as logs are kept. Only the functions' roles and short-lived presigned URLs reach objects; use CloudTrail data events for an audit trail.",
  });
  if (sb.objectAuditTrail) {
    acknowledge(sb.node.findChild('AuditTrailLogs'), {
      'AwsSolutions-S1':
        "The audit trail's own log bucket: only CloudTrail writes it, its log files are validated and versioned, and logging its access would need yet another bucket.",
    });
  }
  if (context.webSocketAccessLogs === 'off') {
    acknowledge(sb.webSocketStage, {
      'AwsSolutions-APIG1': WEBSOCKET_LOGS_OFF,
      'Serverless-APIGWAccessLogging': WEBSOCKET_LOGS_OFF,
    });
  }
  if (sb.apiGatewayAccountRole) {
    acknowledge(sb.apiGatewayAccountRole, {
      [`AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/${API_GATEWAY_LOGS_POLICY}]`]:
        "AmazonAPIGatewayPushToCloudWatchLogs is the policy AWS documents for the account's API Gateway CloudWatch role, which every REST and WebSocket API in the region shares: its log groups are not this stack's to list.",
    });
  }
  for (const route of sb.webSocketApi.node.children) {
    if (!(route instanceof WebSocketRoute) || route.routeKey === '$connect') continue;
    acknowledge(route, {
      'AwsSolutions-APIG4':
        'API Gateway authorises a WebSocket connection once, on $connect; $disconnect, $default and the action routes run with the identity $connect established.',
    });
  }
}

/**
 * Acknowledges that a Switchboard deployment has no authoriser on purpose (AwsSolutions-APIG4 on the
 * HTTP routes and `$connect`). Every caller is then the same anonymous user, who can read every session:
 * only for a demo or a private test deployment.
 *
 * @example
 * ```ts
 * acknowledgeAnonymousAccess(switchboard, 'Demo stack: no identity provider, nothing private in it.');
 * ```
 */
export function acknowledgeAnonymousAccess(sb: Switchboard, reason: string): void {
  acknowledgeAnonymousRoutes(sb);
  acknowledge(sb.httpApi, { 'AwsSolutions-APIG4': reason });
  acknowledge(sb.webSocketApi, { 'AwsSolutions-APIG4': reason });
}

function acknowledge(scope: IConstruct, reasons: Record<string, string>): void {
  for (const [id, reason] of Object.entries(reasons)) Validations.of(scope).acknowledge({ id, reason });
}

/**
 * A resolved ARN as cdk-nag names it in a finding: `{ Ref: X }` is `<X>`, `{ 'Fn::GetAtt': [X, Y] }`
 * is `<X.Y>`, and a join is its parts joined.
 */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const node = value as Record<string, unknown>;
  if (Array.isArray(node['Fn::Join'])) {
    const [delimiter, parts] = node['Fn::Join'] as [string, unknown[]];
    return parts.map(flatten).join(delimiter);
  }
  if (node['Fn::Sub'] !== undefined) return flatten(node['Fn::Sub']);
  if (Array.isArray(node['Fn::GetAtt'])) {
    const [resource, attribute] = node['Fn::GetAtt'] as [unknown, unknown];
    return `<${flatten(resource)}.${flatten(attribute)}>`;
  }
  if (node.Ref !== undefined) return `<${flatten(node.Ref)}>`;
  return JSON.stringify(value);
}
