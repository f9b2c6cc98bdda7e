import { CfnParameter, Duration } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { UserPool } from 'aws-cdk-lib/aws-cognito';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { checkSwitchboardProps, type SwitchboardProps } from '../../infra/props.ts';
import { HTTP_ROUTES } from '../../infra/routes.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  FIXTURE_AGENTS,
  LARGE_HOST_TOOLS,
  newStack,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

/** Every message the props' check gives, one a line (what `cdk synth` would list). */
function problems(props: SwitchboardProps): string {
  return checkSwitchboardProps(props).errors.join('\n');
}

describe('Switchboard props', () => {
  it(
    'fails the synth of a stack without authentication or with an invalid literal, naming the options',
    () => {
      const stack = newStack();
      new Switchboard(stack, 'Switchboard', { agents: FIXTURE_AGENTS, workerBatchSize: 11 });
      // The construct is built; the synth's validation lists every problem, under the construct's path.
      expect(() => Template.fromStack(stack)).toThrow(
        /Validation failed[\s\S]*Test\/Switchboard[\s\S]*HTTP API and the WebSocket API would have no authoriser.*auth: \{ issuer, audience \}.*allowAnonymous: true[\s\S]*workerBatchSize must be an integer from 1 to 10, got 11/,
      );
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'accepts token-valued props (a parameter, a user pool’s issuer and client), known only at deployment',
    () => {
      const stack = newStack();
      const pool = new UserPool(stack, 'Pool');
      const client = pool.addClient('Hosts');
      const memory = new CfnParameter(stack, 'Memory', { type: 'Number', default: 1024 });
      const stage = new CfnParameter(stack, 'Stage', { type: 'String', default: 'live' });
      const props: SwitchboardProps = {
        agents: FIXTURE_AGENTS,
        auth: { issuer: pool.userPoolProviderUrl, audience: [client.userPoolClientId] },
        memorySize: memory.valueAsNumber,
        stageName: stage.valueAsString,
      };
      expect(checkSwitchboardProps(props).errors).toEqual([]);
      new Switchboard(stack, 'Switchboard', props);
      const template = Template.fromStack(stack);
      template.hasResourceProperties('AWS::Lambda::Function', { MemorySize: { Ref: 'Memory' } });
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { StageName: { Ref: 'Stage' } });
    },
    SYNTH_TIMEOUT_MS,
  );

  it('refuses props without authentication unless allowAnonymous says so', () => {
    const checkToken = new LambdaFunction(newStack(), 'CheckToken', {
      runtime: Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: Code.fromInline('export const handler = async () => ({});'),
    });
    // One custom authoriser is not enough: the other API would still be open.
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        webSocketAuthorizer: new WebSocketLambdaAuthorizer('Token', checkToken, { identitySource: [] }),
      }),
    ).toMatch(/the HTTP API would have no authoriser/);
    const anonymous = checkSwitchboardProps({ agents: FIXTURE_AGENTS, allowAnonymous: true });
    expect(anonymous.errors).toEqual([]);
    expect(anonymous.resolved.allowAnonymous).toBe(true);
  });

  it('rejects built-in auth with a custom authoriser, an issuer that is not https, or no audience', () => {
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        auth: TEST_AUTH,
        httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://issuer.example.com', {
          jwtAudience: ['hosts'],
        }),
      }),
    ).toMatch(/either auth .* or httpAuthorizer and webSocketAuthorizer, not both/);
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        auth: { issuer: 'http://issuer.example.com', audience: ['a'] },
      }),
    ).toMatch(/auth.issuer is not valid: Expected an https URL/);
    expect(problems({ agents: FIXTURE_AGENTS, auth: { issuer: TEST_AUTH.issuer, audience: [] } })).toMatch(
      /auth.audience is not valid/,
    );
  });

  it('rejects an agents module that does not exist', () => {
    expect(
      () =>
        new Switchboard(newStack(), 'Switchboard', { agents: './no/such/agents.ts', allowAnonymous: true }),
    ).toThrow(/agents module "\.\/no\/such\/agents\.ts" does not exist/);
  });

  it('rejects a worker timeout above Lambda’s 15 minutes', () => {
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        auth: TEST_AUTH,
        workerTimeout: Duration.minutes(16),
      }),
    ).toMatch(/workerTimeout/);
  });

  it('takes tracing to X-Ray or to an https OTLP endpoint, a headers secret only with the latter, a ratio from 0 to 1', () => {
    const base = { agents: FIXTURE_AGENTS, auth: TEST_AUTH };
    expect(problems({ ...base, tracing: true })).toBe('');
    expect(problems({ ...base, tracing: { sampleRatio: 0.1 } })).toBe('');
    expect(
      problems({
        ...base,
        tracing: {
          endpoint: 'https://otlp.example.com/v1/traces',
          headersSecret: 'otlp-headers',
          sampleRatio: 0,
        },
      }),
    ).toBe('');
    expect(problems({ ...base, tracing: { endpoint: 'http://otlp.example.com/v1/traces' } })).toMatch(
      /tracing\.endpoint/,
    );
    expect(problems({ ...base, tracing: { endpoint: 'xray', headersSecret: 'otlp-headers' } })).toMatch(
      /tracing\.headersSecret/,
    );
    expect(problems({ ...base, tracing: { sampleRatio: 1.5 } })).toMatch(/tracing\.sampleRatio/);
  });

  it('rejects settings that are not JSON-serialisable', () => {
    const settings: Record<string, unknown> = {};
    settings.self = settings;
    expect(problems({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, settings })).toMatch(/JSON-serialisable/);
  });

  it('checks the settings at synth, naming the bad one, and takes settings far past 4 KB of environment', () => {
    const bad = (settings: Record<string, unknown>) =>
      problems({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, settings });
    expect(bad({ runs: { leaseMs: 10 } })).toMatch(/^Switchboard: Invalid settings at runs\.leaseMs: /);
    expect(bad({ stream: { coalesceMs: 250, window: 1 } })).toMatch(/settings at stream\b.*window/);
    expect(
      bad({
        tools: {
          hostTools: [
            { name: 'open', parameters: { type: 'object', properties: { a: { $ref: '#/nope' } } } },
          ],
        },
      }),
    ).toMatch(/settings at tools\.hostTools\.0\.parameters: parameters is not a usable JSON schema/);
    const hostTools = LARGE_HOST_TOOLS;
    const { resolved } = checkSwitchboardProps({
      agents: FIXTURE_AGENTS,
      auth: TEST_AUTH,
      settings: { tools: { hostTools } },
    });
    expect(resolved.settingsJson!.length).toBeGreaterThan(8_000);
    expect(JSON.parse(resolved.settingsJson!)).toEqual({ tools: { hostTools } });
  });

  it('rejects a FIFO batch larger than ten and an invalid stage name', () => {
    expect(problems({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, workerBatchSize: 11 })).toMatch(
      /workerBatchSize/,
    );
    expect(problems({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, stageName: 'a/b' })).toMatch(/stageName/);
  });

  it('takes Bedrock models by their whole ARN only: a wildcard or another service’s ARN is refused', () => {
    const models = (bedrock: string[]) =>
      problems({ agents: FIXTURE_AGENTS, allowAnonymous: true, models: { bedrock } });
    expect(
      models([
        'arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
        'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
      ]),
    ).toBe('');
    expect(models(['arn:aws:bedrock:eu-west-1::foundation-model/*'])).toContain(
      'models.bedrock: "arn:aws:bedrock:eu-west-1::foundation-model/*" is not the ARN of one Bedrock model',
    );
    expect(models(['*'])).toContain('models.bedrock: "*"');
    expect(models(['arn:aws:s3:::bucket/key'])).toContain('models.bedrock');
  });

  it('applies the documented defaults and resolves the agents path', () => {
    const { resolved } = checkSwitchboardProps({ agents: 'test/infra/fixtures/agents.ts', auth: TEST_AUTH });
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
