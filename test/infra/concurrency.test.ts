import { Template } from 'aws-cdk-lib/assertions';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkSwitchboardProps } from '../../infra/props.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import {
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  type Resources,
  SYNTH_TIMEOUT_MS,
  TEST_AUTH,
} from './template-helpers.ts';

let all: Resources;

/** One synth: an instance that reserves AG-UI concurrency (and bounds the worker), one at the defaults. */
beforeAll(() => {
  const stack = newStack();
  new Switchboard(stack, 'Reserved', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    aguiReservedConcurrency: 50,
    workerMaxConcurrency: 20,
  });
  new Switchboard(stack, 'Plain', { agents: FIXTURE_AGENTS, auth: TEST_AUTH });
  all = Template.fromStack(stack).toJSON().Resources as Resources;
}, SYNTH_TIMEOUT_MS);

/** Each function of an instance with its reserved concurrency, by the function's construct id. */
function reservations(instance: string): Record<string, unknown> {
  const functions = idsOfType(all, 'AWS::Lambda::Function').filter((id) => id.startsWith(instance));
  return Object.fromEntries(
    functions.map((id) => [
      /^[A-Z][a-z]+([A-Za-z]+?Function)/.exec(id)?.[1] ?? id,
      all[id]?.Properties?.ReservedConcurrentExecutions,
    ]),
  );
}

describe('concurrency', () => {
  it('reserves nothing by default: a reservation can fail the deploy of an account with a small quota', () => {
    const plain = reservations('Plain');
    expect(Object.keys(plain)).toHaveLength(6);
    expect(Object.values(plain).every((value) => value === undefined)).toBe(true);
    const mapping = idsOfType(all, 'AWS::Lambda::EventSourceMapping').find((id) => id.startsWith('Plain'));
    expect(all[mapping ?? '']?.Properties?.ScalingConfig).toBeUndefined();
  });

  it('with aguiReservedConcurrency, reserves it for the AG-UI function and for no other', () => {
    expect(reservations('Reserved')).toEqual({
      HttpFunction: undefined,
      WebSocketFunction: undefined,
      WorkerFunction: undefined,
      SweepFunction: undefined,
      AuthorizerFunction: undefined,
      AgUiFunction: 50,
    });
    // The worker is bounded by its event source, not by a reservation of its own.
    const mapping = idsOfType(all, 'AWS::Lambda::EventSourceMapping').find((id) => id.startsWith('Reserved'));
    expect(all[mapping ?? '']?.Properties?.ScalingConfig).toEqual({ MaximumConcurrency: 20 });
  });

  it('refuses a reservation out of range, or one with no AG-UI function to take it', () => {
    const errors = (props: Parameters<typeof checkSwitchboardProps>[0]) =>
      checkSwitchboardProps(props).errors.join('\n');
    expect(errors({ agents: FIXTURE_AGENTS, auth: TEST_AUTH, aguiReservedConcurrency: 0 })).toContain(
      'aguiReservedConcurrency must be an integer from 1 to 1000, got 0',
    );
    const stack = newStack();
    const fn = LambdaFunction.fromFunctionArn(
      stack,
      'Fn',
      'arn:aws:lambda:eu-west-1:111111111111:function:a',
    );
    expect(
      errors({
        agents: FIXTURE_AGENTS,
        aguiReservedConcurrency: 5,
        httpAuthorizer: new HttpJwtAuthorizer('Jwt', 'https://login.example.com/', { jwtAudience: ['a'] }),
        webSocketAuthorizer: new WebSocketLambdaAuthorizer('Connect', fn),
      }),
    ).toContain('aguiReservedConcurrency needs the AG-UI function');
  });
});
