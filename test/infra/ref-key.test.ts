import { RemovalPolicy } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  asList,
  environmentOf,
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  policyStatements,
  type Resources,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
  TEST_AUTH,
} from './template-helpers.ts';

/** The functions that identify callers, and so key their session scope, by logical id prefix. */
const READERS = ['SwitchboardHttpFunction', 'SwitchboardWebSocketFunction', 'SwitchboardAgUiFunction'];
const OTHERS = ['SwitchboardWorkerFunction', 'SwitchboardSweepFunction', 'SwitchboardAuthorizerFunction'];

let template: Template;
let resources: Resources;
let destroyed: Resources;
let secret: string;

beforeAll(() => {
  ({ template, resources } = synthSwitchboard());
  const stack = newStack();
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  destroyed = Template.fromStack(stack).toJSON().Resources as Resources;
  secret = idsOfType(resources, 'AWS::SecretsManager::Secret')[0] ?? '';
}, SYNTH_TIMEOUT_MS);

/** The logical id of the one function whose id starts with `prefix`. */
function functionId(prefix: string): string {
  const id = idsOfType(resources, 'AWS::Lambda::Function').find((i) => i.startsWith(prefix));
  if (!id) throw new Error(`no ${prefix}`);
  return id;
}

describe('the session-ref key on AWS', () => {
  it('is one secret that CloudFormation generates: 48 characters or more, with no value in the template', () => {
    expect(idsOfType(resources, 'AWS::SecretsManager::Secret')).toEqual([secret]);
    expect(secret).toMatch(/^SwitchboardRefKey/);
    const props = resources[secret]?.Properties ?? {};
    const generate = props.GenerateSecretString as { PasswordLength?: number; ExcludePunctuation?: boolean };
    expect(generate.PasswordLength).toBeGreaterThanOrEqual(48);
    expect(generate.ExcludePunctuation).toBe(true);
    expect(props.SecretString).toBeUndefined();
    // Secrets Manager's own key: a reader needs GetSecretValue alone, no KMS grant.
    expect(props.KmsKeyId).toBeUndefined();
  });

  it('is never rotated: a new key would change every ref', () => {
    expect(idsOfType(resources, 'AWS::SecretsManager::RotationSchedule')).toEqual([]);
  });

  it('is kept or deleted with the table, whose refs it keys', () => {
    for (const stack of [resources, destroyed]) {
      const [table] = idsOfType(stack, 'AWS::DynamoDB::GlobalTable');
      const [key] = idsOfType(stack, 'AWS::SecretsManager::Secret');
      const policies = (id: string) => {
        const resource = stack[id ?? ''] as { DeletionPolicy?: string; UpdateReplacePolicy?: string };
        return [resource.DeletionPolicy, resource.UpdateReplacePolicy];
      };
      expect(policies(key ?? '')).toEqual(policies(table ?? ''));
    }
    expect(resources[secret]?.DeletionPolicy).toBe('Retain');
    expect(destroyed[idsOfType(destroyed, 'AWS::SecretsManager::Secret')[0] ?? '']?.DeletionPolicy).toBe(
      'Delete',
    );
  });

  it('is named to the HTTP, WebSocket and AG-UI functions only', () => {
    for (const prefix of READERS)
      expect(environmentOf(resources, functionId(prefix)).SWITCHBOARD_REF_KEY_SECRET, prefix).toEqual({
        Ref: secret,
      });
    for (const prefix of OTHERS)
      expect(environmentOf(resources, functionId(prefix)).SWITCHBOARD_REF_KEY_SECRET, prefix).toBeUndefined();
  });

  it('may be read (GetSecretValue, nothing else) by those three roles, on that secret alone', () => {
    const onSecrets = policyStatements(resources).filter(({ statement }) =>
      asList(statement.Action).some((action) => String(action).startsWith('secretsmanager:')),
    );
    expect(onSecrets.map(({ logicalId }) => logicalId.replace(/Role.*$/, '')).sort()).toEqual(
      [...READERS].sort(),
    );
    for (const { statement } of onSecrets) {
      expect(statement.Effect).toBe('Allow');
      expect(asList(statement.Action)).toEqual(['secretsmanager:GetSecretValue']);
      expect(asList(statement.Resource)).toEqual([{ Ref: secret }]);
    }
    // Nothing else names the secret: no other grant, no resource policy.
    const naming = policyStatements(resources).filter(({ statement }) =>
      JSON.stringify(statement.Resource ?? '').includes(secret),
    );
    expect(naming).toHaveLength(READERS.length);
    const kms = policyStatements(resources).filter(({ statement }) =>
      asList(statement.Action).some((action) => String(action).startsWith('kms:')),
    );
    expect(kms.filter(({ logicalId }) => logicalId.includes('Function'))).toEqual([]);
  });

  it('is output as <id>RefKeySecretArn, what an operator command given --user reads', () => {
    template.hasOutput('SwitchboardRefKeySecretArn', { Value: { Ref: secret } });
  });
});
