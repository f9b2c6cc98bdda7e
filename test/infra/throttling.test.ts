import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSwitchboardProps, type SwitchboardProps } from '../../infra/props.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  refOf,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
} from './template-helpers.ts';

let resources: Resources;

beforeAll(() => {
  ({ resources } = synthSwitchboard());
}, SYNTH_TIMEOUT_MS);

/** The DefaultRouteSettings of the stage of the API with this protocol. */
function stageSettings(of: Resources, protocol: 'HTTP' | 'WEBSOCKET'): Record<string, unknown> | undefined {
  const api = idsOfType(of, 'AWS::ApiGatewayV2::Api').find(
    (id) => of[id]?.Properties?.ProtocolType === protocol,
  );
  const stages = idsOfType(of, 'AWS::ApiGatewayV2::Stage').filter(
    (id) => refOf(of[id]?.Properties?.ApiId) === api,
  );
  expect(stages).toHaveLength(1);
  return of[stages[0] ?? '']?.Properties?.DefaultRouteSettings as Record<string, unknown> | undefined;
}

/** Every message the props' check gives, one a line (what `cdk synth` would list). */
function problems(props: SwitchboardProps): string {
  return checkSwitchboardProps(props).errors.join('\n');
}

describe('stage throttling', () => {
  it('throttles the HTTP API’s $default stage at 1000 a second with a burst of 2000 by default', () => {
    expect(stageSettings(resources, 'HTTP')).toMatchObject({
      ThrottlingRateLimit: 1000,
      ThrottlingBurstLimit: 2000,
    });
  });

  it('throttles the WebSocket stage at 500 a second with a burst of 1000 by default', () => {
    expect(stageSettings(resources, 'WEBSOCKET')).toMatchObject({
      ThrottlingRateLimit: 500,
      ThrottlingBurstLimit: 1000,
    });
  });

  it(
    'takes other rates as props, and false leaves a stage to the account’s limit',
    () => {
      const stack = newStack();
      new Switchboard(stack, 'Switchboard', {
        agents: FIXTURE_AGENTS,
        allowAnonymous: true,
        httpThrottle: { rateLimit: 50.5, burstLimit: 100 },
        webSocketThrottle: false,
      });
      const custom = Template.fromStack(stack).toJSON().Resources as Resources;
      expect(stageSettings(custom, 'HTTP')).toMatchObject({
        ThrottlingRateLimit: 50.5,
        ThrottlingBurstLimit: 100,
      });
      expect(JSON.stringify(stageSettings(custom, 'WEBSOCKET') ?? {})).not.toContain('Throttling');
    },
    SYNTH_TIMEOUT_MS,
  );

  it('rejects a rate that is not positive and a burst that is not a whole number', () => {
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        allowAnonymous: true,
        httpThrottle: { rateLimit: 0, burstLimit: 10 },
      }),
    ).toMatch(/httpThrottle\.rateLimit/);
    expect(
      problems({
        agents: FIXTURE_AGENTS,
        allowAnonymous: true,
        webSocketThrottle: { rateLimit: 5, burstLimit: 1.5 },
      }),
    ).toMatch(/webSocketThrottle\.burstLimit/);
  });
});
