import { Annotations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
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
  TEST_AUTH,
} from './template-helpers.ts';

/** A stack with one Switchboard given `eventBus` (absent: the default). */
function synth(eventBus?: 'existing' | false): Resources {
  const stack = newStack();
  const bus = eventBus === 'existing' ? EventBus.fromEventBusName(stack, 'Team', 'team-bus') : eventBus;
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    ...(bus !== undefined && { eventBus: bus }),
  });
  Annotations.of(stack).acknowledgeWarning('switchboard:noAuthorizer');
  return Template.fromStack(stack).toJSON().Resources as Resources;
}

const RUNTIME_FUNCTIONS = [
  'HttpFunction',
  'WebSocketFunction',
  'WorkerFunction',
  'SweepFunction',
  'AgUiFunction',
];

/** The logical id of a function of the construct. */
function functionId(resources: Resources, name: string): string {
  const id = idsOfType(resources, 'AWS::Lambda::Function').find((i) => i.startsWith(`Switchboard${name}`));
  if (!id) throw new Error(`no ${name}`);
  return id;
}

/** The resources of every `events:PutEvents` grant, as JSON. */
function putEventsResources(resources: Resources): string[] {
  return policyStatements(resources)
    .filter(({ statement }) => asList(statement.Action).includes('events:PutEvents'))
    .map(({ statement }) => JSON.stringify(statement.Resource));
}

let byDefault: Resources;
let existing: Resources;
let none: Resources;

beforeAll(() => {
  byDefault = synth();
  existing = synth('existing');
  none = synth(false);
}, SYNTH_TIMEOUT_MS);

describe('domain events: the event bus', () => {
  it('creates a bus of its own by default, names it to every runtime function and lets them put events on it alone', () => {
    const [bus] = idsOfType(byDefault, 'AWS::Events::EventBus');
    expect(bus).toMatch(/^SwitchboardEventBus/);
    for (const name of RUNTIME_FUNCTIONS) {
      expect(environmentOf(byDefault, functionId(byDefault, name)).SWITCHBOARD_EVENT_BUS, name).toEqual({
        Ref: bus,
      });
    }
    const grants = putEventsResources(byDefault);
    expect(grants).toHaveLength(RUNTIME_FUNCTIONS.length);
    for (const resource of grants) expect(resource).toBe(JSON.stringify({ 'Fn::GetAtt': [bus, 'Arn'] }));
  });

  it('the $connect authoriser neither knows the bus nor may put events', () => {
    const authorizer = functionId(byDefault, 'AuthorizerFunction');
    expect(environmentOf(byDefault, authorizer).SWITCHBOARD_EVENT_BUS).toBeUndefined();
    const statements = policyStatements(byDefault).filter(({ logicalId }) =>
      logicalId.startsWith('SwitchboardAuthorizerFunctionRole'),
    );
    expect(statements.flatMap(({ statement }) => asList(statement.Action))).not.toContain('events:PutEvents');
  });

  it('publishes on an existing bus when given one, creating none', () => {
    expect(idsOfType(existing, 'AWS::Events::EventBus')).toEqual([]);
    expect(environmentOf(existing, functionId(existing, 'WorkerFunction')).SWITCHBOARD_EVENT_BUS).toBe(
      'team-bus',
    );
    const grants = putEventsResources(existing);
    expect(grants).toHaveLength(RUNTIME_FUNCTIONS.length);
    for (const resource of grants) expect(resource).toContain(':event-bus/team-bus');
  });

  it('with eventBus: false, has no bus, no bus in any environment and no grant to put events', () => {
    expect(idsOfType(none, 'AWS::Events::EventBus')).toEqual([]);
    for (const name of RUNTIME_FUNCTIONS)
      expect(environmentOf(none, functionId(none, name)).SWITCHBOARD_EVENT_BUS, name).toBeUndefined();
    expect(putEventsResources(none)).toEqual([]);
  });
});
