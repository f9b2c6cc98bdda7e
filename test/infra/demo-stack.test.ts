import { existsSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardDemoStack } from '../../infra/demo-stack.ts';
import { newApp, SYNTH_TIMEOUT_MS, TEST_AUTH } from './template-helpers.ts';

// The demo agent is written alongside this stack; until it exists there is nothing to synthesise.
const hasDemoAgents = existsSync(new URL('../../demo/agents.ts', import.meta.url));

let template: Template;

beforeAll(() => {
  if (!hasDemoAgents) return;
  const stack = new SwitchboardDemoStack(newApp(), 'SwitchboardDemo', { auth: TEST_AUTH });
  template = Template.fromStack(stack);
}, SYNTH_TIMEOUT_MS);

describe.skipIf(!hasDemoAgents)('the demo stack', () => {
  it('destroys its table, bucket and logs with the stack', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Delete' });
    template.allResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Delete' });
  });

  it('empties the bucket before deleting it, so teardown does not fail on leftover files', () => {
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 1);
  });

  it(
    'refuses to synthesise without auth unless anonymous callers are asked for',
    () => {
      const open = new SwitchboardDemoStack(newApp(), 'Open');
      expect(() => Template.fromStack(open)).toThrow(/allowAnonymous: true/);
    },
    SYNTH_TIMEOUT_MS,
  );

  it('authenticates callers with the issuer it is given', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: TEST_AUTH.issuer, Audience: TEST_AUTH.audience },
    });
  });

  it('is environment-agnostic, so it synthesises without credentials or lookups', () => {
    const stack = template.toJSON() as { Resources: Record<string, unknown> };
    expect(JSON.stringify(stack)).not.toMatch(/\b\d{12}\b/);
  });
});
