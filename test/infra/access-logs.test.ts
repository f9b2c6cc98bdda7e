import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSwitchboardProps } from '../../infra/props.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  refOf,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

/** The template's resources, and each instance's own (its logical ids start with the construct's id). */
let all: Resources;
const byInstance: Record<'Off' | 'Exists' | 'Create', Resources> = {
  Off: {},
  Exists: {},
  Create: {},
};

/** One stack, one synth: an instance with each choice of `webSocketAccessLogs` (the first by default). */
beforeAll(() => {
  const stack = newStack();
  new Switchboard(stack, 'Off', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
  new Switchboard(stack, 'Exists', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    webSocketAccessLogs: 'account-role-exists',
  });
  new Switchboard(stack, 'Create', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    webSocketAccessLogs: 'create-account-role',
  });
  all = Template.fromStack(stack).toJSON().Resources as Resources;
  for (const name of Object.keys(byInstance) as (keyof typeof byInstance)[]) {
    byInstance[name] = Object.fromEntries(Object.entries(all).filter(([id]) => id.startsWith(name)));
  }
}, SYNTH_TIMEOUT_MS);

/** An instance's stage of one protocol: its logical id and properties. */
function stageOf(resources: Resources, protocol: 'HTTP' | 'WEBSOCKET') {
  const api = idsOfType(resources, 'AWS::ApiGatewayV2::Api').find(
    (id) => resources[id]?.Properties?.ProtocolType === protocol,
  );
  const id = idsOfType(resources, 'AWS::ApiGatewayV2::Stage').find(
    (stage) => refOf(resources[stage]?.Properties?.ApiId) === api,
  );
  expect(id, `${protocol} stage`).toBeDefined();
  return {
    id: id as string,
    stage: all[id as string] as { Properties: Record<string, unknown>; DependsOn?: string[] },
  };
}

/** A stage's access log settings, by the protocol of its API. */
function accessLogOf(
  protocol: 'HTTP' | 'WEBSOCKET',
  resources = byInstance.Exists,
): { DestinationArn: unknown; Format: string } {
  const settings = stageOf(resources, protocol).stage.Properties.AccessLogSettings;
  expect(settings, `${protocol} stage access log`).toBeDefined();
  return settings as { DestinationArn: unknown; Format: string };
}

/** Anything that can carry a token, a file or a host's words: headers, query strings, paths and bodies. */
const SECRET_BEARING =
  /header|querystring|userAgent|\.path\b|\$input|\$request|authorization|apiKey|clientCert/i;

describe('API access logs', () => {
  for (const protocol of ['HTTP', 'WEBSOCKET'] as const) {
    it(`${protocol}: one JSON line per request, in a log group of its own kept as long as the function logs`, () => {
      const { DestinationArn, Format } = accessLogOf(protocol);
      const group = all[refOf(DestinationArn) ?? ''];
      expect(group?.Type).toBe('AWS::Logs::LogGroup');
      expect(group?.Properties?.RetentionInDays).toBe(30);
      const fields = JSON.parse(Format) as Record<string, string>;
      expect(fields).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
      expect(fields.routeKey).toBe('$context.routeKey');
    });

    it(`${protocol}: logs no header, query string, path or body`, () => {
      const fields = JSON.parse(accessLogOf(protocol).Format) as Record<string, string>;
      for (const value of Object.values(fields)) {
        expect(value).toMatch(/^\$context\.[A-Za-z.]+$/);
        expect(value).not.toMatch(SECRET_BEARING);
      }
    });
  }

  it('WEBSOCKET: names the connection and the event, since frames are not logged', () => {
    const fields = JSON.parse(accessLogOf('WEBSOCKET').Format) as Record<string, string>;
    expect(fields).toMatchObject({ connectionId: '$context.connectionId', eventType: '$context.eventType' });
  });
});

describe("webSocketAccessLogs: the account's API Gateway CloudWatch role", () => {
  const accounts = (resources: Resources) => idsOfType(resources, 'AWS::ApiGateway::Account');

  it("by default ('off') the WebSocket stage has no access log and the account is left alone, so a fresh account deploys", () => {
    const { stage } = stageOf(byInstance.Off, 'WEBSOCKET');
    expect(stage.Properties.AccessLogSettings).toBeUndefined();
    expect(accounts(byInstance.Off)).toEqual([]);
    // The HTTP API's access log needs no account role: it stays on.
    expect(accessLogOf('HTTP', byInstance.Off).Format).toContain('$context.requestId');
  });

  it("'account-role-exists' logs the WebSocket stage and sets nothing account-wide", () => {
    expect(accessLogOf('WEBSOCKET', byInstance.Exists).Format).toContain('$context.connectionId');
    expect(accounts(byInstance.Exists)).toEqual([]);
    expect(idsOfType(byInstance.Exists, 'AWS::IAM::Role').filter((id) => id.includes('ApiGateway'))).toEqual(
      [],
    );
  });

  it("'create-account-role' sets the account's role to one API Gateway assumes, before the stage is made, and keeps both", () => {
    const [account] = accounts(byInstance.Create);
    expect(accounts(byInstance.Create)).toHaveLength(1);
    const accountResource = all[account as string] as unknown as {
      Properties: { CloudWatchRoleArn: unknown };
      DeletionPolicy?: string;
    };
    expect(accountResource.DeletionPolicy).toBe('Retain');
    const role = all[refOf(accountResource.Properties.CloudWatchRoleArn) ?? ''];
    expect(role?.Type).toBe('AWS::IAM::Role');
    expect(role?.DeletionPolicy).toBe('Retain');
    expect(JSON.stringify(role?.Properties?.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    expect(JSON.stringify(role?.Properties?.ManagedPolicyArns)).toContain(
      'policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    );
    const { stage } = stageOf(byInstance.Create, 'WEBSOCKET');
    expect(stage.DependsOn).toContain(account);
    expect(stage.Properties.AccessLogSettings).toBeDefined();
  });

  it('refuses any other value, naming the prop', () => {
    const { errors } = checkSwitchboardProps({
      agents: FIXTURE_AGENTS,
      allowAnonymous: true,
      webSocketAccessLogs: 'on' as 'off',
    });
    expect(errors).toEqual([expect.stringContaining("webSocketAccessLogs must be one of 'off'")]);
  });
});
