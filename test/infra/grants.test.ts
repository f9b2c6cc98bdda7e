import { Template } from 'aws-cdk-lib/assertions';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { AccountRootPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { Switchboard } from '../../infra/switchboard.ts';
import { GRANTEE_PERMISSIONS } from '../../lib/config/index.ts';
import {
  asList,
  FIXTURE_AGENTS,
  type FoundStatement,
  newStack,
  policyStatements,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

let operator: FoundStatement[];
let backend: FoundStatement[];

beforeAll(() => {
  const stack = newStack();
  const switchboard = new Switchboard(stack, 'Switchboard', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
  const support = new Role(stack, 'Support', { assumedBy: new AccountRootPrincipal() });
  const hosts = new Role(stack, 'Hosts', { assumedBy: new AccountRootPrincipal() });
  switchboard.grantReadSessions(support);
  switchboard.grantInvokeAgUi(hosts);
  const resources = Template.fromStack(stack).toJSON().Resources;
  const statements = policyStatements(resources);
  operator = statements.filter(({ logicalId }) => logicalId.startsWith('SupportDefaultPolicy'));
  backend = statements.filter(({ logicalId }) => logicalId.startsWith('HostsDefaultPolicy'));
}, SYNTH_TIMEOUT_MS);

describe('the construct’s grant methods', () => {
  it('grantReadSessions gives the read actions of the permission list on the table and the owner index, and no write', () => {
    const granted = operator.flatMap(({ statement }) =>
      asList(statement.Action).map((action) => `${action}@${JSON.stringify(statement.Resource)}`),
    );
    const actions = new Set(operator.flatMap(({ statement }) => asList(statement.Action)));
    expect([...actions].sort()).toEqual(
      [...new Set(GRANTEE_PERMISSIONS.readSessions.flatMap((grant) => [...grant.actions]))].sort(),
    );
    expect(granted.some((g) => g.startsWith('dynamodb:GetItem@') && g.includes('SwitchboardTable'))).toBe(
      true,
    );
    expect(granted.some((g) => g.startsWith('dynamodb:Query@') && g.includes('/index/gsi2'))).toBe(true);
    expect(granted.some((g) => g.includes('/index/gsi1'))).toBe(false);
  });

  it('grantInvokeAgUi gives the URL invoke actions on the AG-UI function only', () => {
    // A function URL's caller needs lambda:InvokeFunction beside lambda:InvokeFunctionUrl.
    expect(backend.flatMap(({ statement }) => asList(statement.Action)).sort()).toEqual([
      'lambda:InvokeFunction',
      'lambda:InvokeFunctionUrl',
    ]);
    for (const { statement } of backend) {
      for (const resource of asList(statement.Resource)) {
        expect(JSON.stringify(resource)).toMatch(/SwitchboardAgUiFunction/);
      }
    }
  });

  it(
    'grantInvokeAgUi grants nothing on a stack without an AG-UI function (custom authorisers)',
    () => {
      const stack = newStack();
      const checkToken = new LambdaFunction(stack, 'CheckToken', {
        runtime: Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: Code.fromInline('export const handler = async () => ({});'),
      });
      const switchboard = new Switchboard(stack, 'Switchboard', {
        agents: FIXTURE_AGENTS,
        httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://issuer.example.com', {
          jwtAudience: ['hosts'],
        }),
        webSocketAuthorizer: new WebSocketLambdaAuthorizer('Token', checkToken, { identitySource: [] }),
      });
      expect(switchboard.aguiFunction).toBeUndefined();
      expect(
        switchboard.grantInvokeAgUi(new Role(stack, 'Hosts', { assumedBy: new AccountRootPrincipal() })),
      ).toBeUndefined();
    },
    SYNTH_TIMEOUT_MS,
  );
});
