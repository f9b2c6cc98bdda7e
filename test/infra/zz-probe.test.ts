import { readFileSync } from 'node:fs';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { type App, Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { it } from 'vitest';
import { Switchboard } from '../../infra/switchboard.ts';
import { FIXTURE_AGENTS, newApp, TEST_AUTH } from './template-helpers.ts';
it('probe', () => {
  const stack = new Stack(newApp(), 'Team');
  new Switchboard(stack, 'S', { agents: FIXTURE_AGENTS, auth: TEST_AUTH, objectAuditTrail: true });
  const assembly = (stack.node.root as App).synth();
  for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()])
    for (const v of pack.validateScope(stack).violations) for (const r of v.violatingResources) console.log('NAG', v.ruleName, r.constructPath);
  const path = assembly.getStackByName(stack.stackName).templateFullPath;
  const res = JSON.parse(readFileSync(path, 'utf8')).Resources;
  const report = new CfnGuardValidator({}).validate({ templatePaths: [path], appConstruct: stack.node.root });
  for (const v of report.violations) for (const r of v.violatingResources) if (!res[r.resourceLogicalId]?.Metadata?.guard?.SuppressedRules?.includes(v.ruleName)) console.log('GUARD', v.ruleName, r.resourceLogicalId);
}, 300000);
