/**
 * The AWS Control Tower proactive controls (cfn-guard rules, as `@cdklabs/cdk-validator-cfnguard` runs
 * them) that Switchboard's own resources do not meet on purpose, and why. test/infra/guard.test.ts runs
 * the rules over the synthesised stacks and fails on any finding not fixed or listed here.
 *
 * A finding is acknowledged on its resource, rule by rule, the way cfn-guard reads it: the resource's
 * `Metadata.guard.SuppressedRules`. What follows from a team's props is acknowledged only while the
 * props leave it so (log retention and encryption, the WebSocket access log); no authoriser is left for
 * the team's own checks, as with cdk-nag. Control Tower's hooks may not read suppressions: docs/deployment.md
 * says which props make the stack pass them and which rules then need an exemption.
 */
import { CfnResource, Duration } from 'aws-cdk-lib';
import { CfnRoute } from 'aws-cdk-lib/aws-apigatewayv2';
import { CfnFunction, CfnPermission, CfnUrl } from 'aws-cdk-lib/aws-lambda';
import { CfnLogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import type { WebSocketAccessLogs } from './access-logs.ts';
import type { Switchboard } from './switchboard.ts';

/** Why each acknowledged rule does not hold, by the rule's name (its Control Tower id in brackets). */
export const GUARD_REASONS: Readonly<Record<string, string>> = {
  lambda_inside_vpc_check:
    '[CT.LAMBDA.PR.3] The functions reach only AWS services over their public endpoints, with IAM and TLS; a VPC would add NAT gateways or endpoints, and their cost, to protect nothing that is in a VPC.',
  lambda_function_url_auth_check:
    '[CT.LAMBDA.PR.5] The AG-UI URL is called by browsers with a bearer JWT, which the function verifies itself (or, with allowAnonymous, serves the anonymous user on purpose): IAM authentication would need AWS credentials in the browser.',
  lambda_function_url_cors_check:
    '[CT.LAMBDA.PR.6] Hosts call the AG-UI URL from their own origins, unknown to the stack; the bearer token, not the origin, authorises a call, and no cookie is sent (no credentials in CORS).',
  lambda_function_public_access_prohibited_check:
    "[CT.LAMBDA.PR.2] The AG-UI function's URL permissions are public by design (the function checks the token); API Gateway's permissions name the API in SourceArn with Fn::Join, which the rule cannot read.",
  s3_bucket_default_encryption_kms_check:
    "[CT.S3.PR.10] The file bucket uses SSE-S3: browsers upload and download through presigned URLs, which a KMS key would make depend on the key policy and on KMS request quotas. The audit trail's log bucket uses SSE-S3 too: only CloudTrail writes it.",
  s3_bucket_versioning_enabled_check:
    '[CT.S3.PR.11] Deleting a file or erasing a user must remove the object; versioning would keep every deleted upload as a noncurrent version.',
  s3_bucket_logging_enabled_check:
    "[CT.S3.PR.2] Server access logs would keep every presigned URL with its signature; CloudTrail data events are the audit trail (as cdk-nag AwsSolutions-S1). The audit trail's log bucket is that trail: logging its access would need a bucket of its own again.",
  s3_event_notifications_enabled_check:
    "[CT.S3.PR.4] Nothing consumes object events: the functions record each upload themselves, and the audit trail's log files are read when needed.",
  s3_bucket_object_lock_enabled_check:
    "[CT.S3.PR.9] Object Lock would forbid the deletes that file deletion, retention and a user's erasure must make. On the audit trail's log bucket it is the team's retention choice (versioning and log file validation already show a change).",
  cloud_trail_encryption_enabled_check:
    '[CT.CLOUDTRAIL.PR.1] The audit trail (objectAuditTrail) writes to a bucket of its own with SSE-S3, its log files validated; a KMS key would need a key policy for CloudTrail and bill each log file.',
  cloud_trail_cloud_watch_logs_enabled_check:
    "[CT.CLOUDTRAIL.PR.3] The audit trail (objectAuditTrail) records one bucket's data events, read from its log bucket when needed; CloudWatch Logs would bill each event a second time.",
  api_gw_v2_authorization_type_configured_check:
    '[CT.APIGATEWAY.PR.5] API Gateway authorises a WebSocket connection once, on $connect; $disconnect, $default and the action routes run with the identity $connect established.',
  api_gw_v2_access_logs_enabled_check:
    "[CT.APIGATEWAY.PR.4] webSocketAccessLogs is 'off' (the default): the WebSocket stage's access log needs the account's API Gateway CloudWatch role, which a fresh account lacks. Set 'account-role-exists' or 'create-account-role' to pass.",
  cloudwatch_log_group_retention_period_check:
    '[CT.CLOUDWATCH.PR.2] logRetention is under a year (one month by default, as logs hold user ids and errors). Set logRetention to RetentionDays.ONE_YEAR or longer to pass.',
  cloudwatch_log_group_encrypted_check:
    "[CT.CLOUDWATCH.PR.3] No logEncryptionKey is given: the log groups use CloudWatch Logs' own encryption. Give logEncryptionKey to pass.",
};

/** What the construct knows that the acknowledgments depend on. */
export interface SwitchboardGuardContext {
  readonly webSocketAccessLogs: WebSocketAccessLogs;
  readonly logRetention: RetentionDays;
  readonly logsEncrypted: boolean;
}

/** Acknowledges the rules the construct does not meet by design. Called once by the constructor. */
export function acknowledgeGuardFindings(sb: Switchboard, context: SwitchboardGuardContext): void {
  const all = sb.node.findAll();
  for (const fn of all.filter((c) => c instanceof CfnFunction)) suppress(fn, 'lambda_inside_vpc_check');
  for (const url of all.filter((c) => c instanceof CfnUrl)) {
    suppress(url, 'lambda_function_url_auth_check', 'lambda_function_url_cors_check');
  }
  for (const permission of all.filter((c): c is CfnPermission => c instanceof CfnPermission)) {
    const principal = permission.principal;
    if (principal === '*' || principal === 'apigateway.amazonaws.com') {
      suppress(permission, 'lambda_function_public_access_prohibited_check');
    }
  }
  suppress(
    sb.bucket,
    's3_bucket_default_encryption_kms_check',
    's3_bucket_versioning_enabled_check',
    's3_bucket_logging_enabled_check',
    's3_event_notifications_enabled_check',
    's3_bucket_object_lock_enabled_check',
  );
  if (sb.objectAuditTrail) {
    suppress(
      sb.objectAuditTrail,
      'cloud_trail_encryption_enabled_check',
      'cloud_trail_cloud_watch_logs_enabled_check',
    );
    suppress(
      sb.node.findChild('AuditTrailLogs'),
      's3_bucket_default_encryption_kms_check',
      's3_bucket_logging_enabled_check',
      's3_event_notifications_enabled_check',
      's3_bucket_object_lock_enabled_check',
    );
  }
  for (const route of all.filter((c): c is CfnRoute => c instanceof CfnRoute)) {
    // Only the WebSocket routes after `$connect`; an HTTP route or `$connect` without an authoriser is
    // the team's choice (allowAnonymous), for its own checks to report.
    const isWebSocket = route.node.path.includes('/WebSocketApi/');
    if (isWebSocket && route.routeKey !== '$connect' && route.authorizationType === 'NONE') {
      suppress(route, 'api_gw_v2_authorization_type_configured_check');
    }
  }
  if (context.webSocketAccessLogs === 'off')
    suppress(sb.webSocketStage, 'api_gw_v2_access_logs_enabled_check');
  const kept = Duration.days(context.logRetention === RetentionDays.INFINITE ? 36_500 : context.logRetention);
  for (const group of all.filter((c) => c instanceof CfnLogGroup)) {
    if (kept.toDays() < 365) suppress(group, 'cloudwatch_log_group_retention_period_check');
    if (!context.logsEncrypted) suppress(group, 'cloudwatch_log_group_encrypted_check');
  }
}

/**
 * Acknowledges that the APIs have no authoriser on purpose (CT.APIGATEWAY.PR.5 on every route), for a
 * deployment such as the demo; see `acknowledgeAnonymousAccess`.
 */
export function acknowledgeAnonymousRoutes(sb: Switchboard): void {
  for (const route of sb.node.findAll().filter((c): c is CfnRoute => c instanceof CfnRoute)) {
    if (route.authorizationType === 'NONE' || route.authorizationType === undefined) {
      suppress(route, 'api_gw_v2_authorization_type_configured_check');
    }
  }
}

/** Adds rules to a resource's `Metadata.guard.SuppressedRules` (the construct's own resource, or itself). */
function suppress(scope: IConstruct, ...rules: string[]): void {
  const resource = scope instanceof CfnResource ? scope : scope.node.defaultChild;
  if (!(resource instanceof CfnResource)) return;
  const guard = (resource.getMetadata('guard') as { SuppressedRules?: string[] } | undefined) ?? {};
  const suppressed = new Set([...(guard.SuppressedRules ?? []), ...rules]);
  resource.addMetadata('guard', { ...guard, SuppressedRules: [...suppressed].sort() });
}
