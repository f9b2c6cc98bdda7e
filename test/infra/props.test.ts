import { Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { resolveSwitchboardProps } from '../../infra/props.ts';
import { HTTP_ROUTES } from '../../infra/routes.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import { FIXTURE_AGENTS, newStack, SYNTH_TIMEOUT_MS, TEST_AUTH } from './template-helpers.ts';

describe('Switchboard props', () => {
  it('refuses a stack without authentication unless allowAnonymous says so, naming the options', () => {
    expect(() => new Switchboard(newStack(), 'Switchboard', { agents: FIXTURE_AGENTS })).toThrow(
      /HTTP API and the WebSocket API would have no authoriser.*auth: \{ issuer, audience \}.*allowAnonymous: true/,
    );
    const checkToken = new LambdaFunction(newStack(), 'CheckToken', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({});'),
    });
    // One custom authoriser is not enough: the other API would still be open.
    expect(() =>
      resolveSwitchboardProps({
        agents: FIXTURE_AGENTS,
        webSocketAuthorizer: new WebSocketLambdaAuthorizer('Token', checkToken, { identitySource: [] }),
      }),
    ).toThrow(/the HTTP API would have no authoriser/);
    expect(resolveSwitchboardProps({ agents: FIXTURE_AGENTS, allowAnonymous: true }).allowAnonymous).toBe(
      true,
    );
  });

  it('rejects built-in auth with a custom authoriser, an issuer that is not https, or no audience', () => {
    expect(() =>
      resolveSwitchboardProps({
        agents: FIXTURE_AGENTS,
        auth: TEST_AUTH,
        httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://issuer.example.com', {
          jwtAudience: ['hosts'],
        }),
      }),
    ).toThrow(/either auth .* or httpAuthorizer and webSocketAuthorizer, not both/);
    expect(() =>
      resolveSwitchboardProps({
        agents: FIXTURE_AGENTS,
        auth: { issuer: 'http://issuer.example.com', audience: ['a'] },
      }),
    ).toThrow(/auth.issuer is not valid: Expected an https URL/);
    expect(() =>
      resolveSwitchboardProps({ agents: FIXTURE_AGENTS, auth: { issuer: TEST_AUTH.issuer, audience: [] } }),
    ).toThrow(/auth.audience is not valid/);
  });

  it('rejects an agents module that does not exist', () => {
    expect(
      () =>
        new Switchboard(newStack(), 'Switchboard', { agents: './no/such/agents.ts', allowAnonymous: true }),
    ).toThrow(/agents module "\.\/no\/such\/agents\.ts" does not exist/);
  });

  it('rejects a worker timeout above Lambda’s 15 minutes', () => {
    expect(() =>
      resolveSwitchboardProps({
        agents: FIXTURE_AGENTS,
        auth: TEST_AUTH,
        workerTimeout: Duration.minutes(16),
      }),
    ).toThrow(/workerTimeout/);
  });

  it('rejects settings that are not JSON-serialisable', () => {
    const settings: Record<string, unknown> = {};
    settings.self = settings;
    expect(() => resolveSwitchboardProps({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, settings })).toThrow(
      /JSON-serialisable/,
    );
  });

  it('rejects a FIFO batch larger than ten and an invalid stage name', () => {
    expect(() =>
      resolveSwitchboardProps({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, workerBatchSize: 11 }),
    ).toThrow(/workerBatchSize/);
    expect(() =>
      resolveSwitchboardProps({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, stageName: 'a/b' }),
    ).toThrow(/stageName/);
  });

  it('applies the documented defaults and resolves the agents path', () => {
    const resolved = resolveSwitchboardProps({ agents: 'test/infra/fixtures/agents.ts', auth: TEST_AUTH });
    expect(resolved.agents).toBe(FIXTURE_AGENTS);
    expect(resolved.workerTimeout.toMinutes()).toBe(5);
    expect(resolved).toMatchObject({
      stageName: 'live',
      memorySize: 512,
      workerMemorySize: 512,
      workerBatchSize: 10,
    });
    expect(resolved.settingsJson).toBeUndefined();
  });

  it(
    'puts the HTTP authoriser on every route and the WebSocket authoriser on $connect',
    () => {
      const stack = newStack();
      const checkToken = new LambdaFunction(stack, 'CheckToken', {
        runtime: Runtime.NODEJS_22_X,
        handler: 'index.handler',
        code: Code.fromInline('export const handler = async () => ({ isAuthorized: false });'),
      });
      new Switchboard(stack, 'Switchboard', {
        agents: FIXTURE_AGENTS,
        httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://issuer.example.com', {
          jwtAudience: ['hosts'],
        }),
        webSocketAuthorizer: new WebSocketLambdaAuthorizer('Token', checkToken, { identitySource: [] }),
      });
      const template = Template.fromStack(stack);
      template.resourcePropertiesCountIs(
        'AWS::ApiGatewayV2::Route',
        { AuthorizationType: 'JWT' },
        HTTP_ROUTES.length,
      );
      template.resourcePropertiesCountIs(
        'AWS::ApiGatewayV2::Route',
        { RouteKey: '$connect', AuthorizationType: 'CUSTOM' },
        1,
      );
      template.resourcePropertiesCountIs('AWS::ApiGatewayV2::Route', { AuthorizationType: 'CUSTOM' }, 1);
      Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('anonymous'));
    },
    SYNTH_TIMEOUT_MS,
  );
});
