import { readFileSync } from 'node:fs';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Annotations, type App, Stack } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GUARD_REASONS } from '../../infra/guard.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import { FIXTURE_AGENTS, newApp, SYNTH_TIMEOUT_MS, TEST_AUTH } from './template-helpers.ts';

/** One finding of a Control Tower rule on one resource, and whether the resource acknowledges it. */
interface Finding {
  readonly rule: string;
  readonly resource: string;
  readonly acknowledged: boolean;
}

/**
 * Runs AWS Control Tower's proactive controls (cfn-guard, `@cdklabs/cdk-validator-cfnguard`) over a
 * stack's template. The plugin reports every finding; one whose resource lists the rule in
 * `Metadata.guard.SuppressedRules` (infra/guard.ts) is marked acknowledged, as cfn-guard reads them.
 */
function guard(stack: Stack): Finding[] {
  const assembly = (stack.node.root as App).synth();
  const path = assembly.getStackByName(stack.stackName).templateFullPath;
  const resources = (
    JSON.parse(readFileSync(path, 'utf8')) as {
      Resources: Record<string, { Metadata?: { guard?: { SuppressedRules?: string[] } } }>;
    }
  ).Resources;
  const report = new CfnGuardValidator({}).validate({ templatePaths: [path], appConstruct: stack.node.root });
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => ({
      rule: violation.ruleName,
      resource: resource.resourceLogicalId,
      acknowledged:
        resources[resource.resourceLogicalId]?.Metadata?.guard?.SuppressedRules?.includes(
          violation.ruleName,
        ) === true,
    })),
  );
}

const line = (finding: Finding) => `${finding.rule} at ${finding.resource}`;

let team: Finding[];
let bare: Finding[];

beforeAll(() => {
  // A team's stack at the defaults, and one whose props meet the rules that props can meet.
  const app = newApp();
  const stack = new Stack(app, 'Team');
  new Switchboard(stack, 'Defaults', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
  new Switchboard(stack, 'Strict', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    logRetention: RetentionDays.ONE_YEAR,
    logEncryptionKey: new Key(stack, 'LogsKey', { enableKeyRotation: true }),
    webSocketAccessLogs: 'account-role-exists',
    objectAuditTrail: true,
  });
  // The test's own key is not the construct's to fix.
  team = guard(stack).filter((f) => /^(Defaults|Strict)/.test(f.resource));
  const bareStack = new Stack(newApp(), 'Bare');
  new Switchboard(bareStack, 'Switchboard', { agents: FIXTURE_AGENTS, allowAnonymous: true });
  Annotations.of(bareStack).acknowledgeWarning('switchboard:noAuthorizer');
  bare = guard(bareStack);
  // Three instances and two runs of cfn-guard: twice a single synth's allowance.
}, 2 * SYNTH_TIMEOUT_MS);

describe('AWS Control Tower proactive controls (cfn-guard)', () => {
  it('find nothing unacknowledged in a stack with the built-in authentication', () => {
    expect(team.length).toBeGreaterThan(0);
    expect(team.filter((f) => !f.acknowledged).map(line)).toEqual([]);
  });

  it('acknowledge only rules that have a reason', () => {
    for (const finding of [...team, ...bare].filter((f) => f.acknowledged)) {
      expect(GUARD_REASONS[finding.rule], finding.rule).toBeTruthy();
    }
  });

  it('are met, not acknowledged, where the construct fixed them: the alarm key, the dead-letter queue', () => {
    const rules = new Set(team.map((f) => f.rule));
    expect(rules.has('kms_create_grant_aws_service_check')).toBe(false);
    expect(rules.has('sqs_dlq_check')).toBe(false);
  });

  it('are met by the props that meet them: log retention and encryption, the WebSocket access log', () => {
    const strict = team.filter((f) => f.resource.startsWith('Strict')).map((f) => f.rule);
    for (const rule of [
      'cloudwatch_log_group_retention_period_check',
      'cloudwatch_log_group_encrypted_check',
      'api_gw_v2_access_logs_enabled_check',
    ]) {
      expect(strict, rule).not.toContain(rule);
      expect(team.some((f) => f.resource.startsWith('Defaults') && f.rule === rule)).toBe(true);
    }
  });

  it("leave a team's own choice for its checks to report: routes without an authoriser", () => {
    const left = bare.filter((f) => !f.acknowledged);
    expect([...new Set(left.map((f) => f.rule))]).toEqual(['api_gw_v2_authorization_type_configured_check']);
    expect(left.map((f) => f.resource)).toContain('SwitchboardWebSocketApiconnectRoute26F53910');
  });
});
