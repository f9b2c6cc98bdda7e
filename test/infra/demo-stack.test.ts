import { existsSync } from 'node:fs';
import { Annotations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SwitchboardDemoStack } from '../../infra/demo-stack.ts';
import { newApp, SYNTH_TIMEOUT_MS } from './template-helpers.ts';

// The demo agent is written alongside this stack; until it exists there is nothing to synthesise.
const hasDemoAgents = existsSync(new URL('../../demo/agents.ts', import.meta.url));

let template: Template;

beforeAll(() => {
  if (!hasDemoAgents) return;
  const stack = new SwitchboardDemoStack(newApp(), 'SwitchboardDemo');
  // The demo is anonymous on purpose; apis.test.ts checks the warning itself.
  Annotations.of(stack).acknowledgeWarning('switchboard:noAuthorizer');
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

  it('is environment-agnostic, so it synthesises without credentials or lookups', () => {
    const stack = template.toJSON() as { Resources: Record<string, unknown> };
    expect(JSON.stringify(stack)).not.toMatch(/\b\d{12}\b/);
  });
});
