import { beforeAll, describe, expect, it } from 'vitest';
import {
  asList,
  type FoundStatement,
  policyStatements,
  type Resources,
  synthSwitchboard,
} from './template-helpers.ts';

/** Actions that AWS offers only on `Resource: "*"`, with the reason. Anything else must name its resource. */
const STAR_RESOURCE_ALLOWED: Record<string, string> = {
  'xray:PutTraceSegments': 'X-Ray has no resource-level permissions for sending trace segments',
  'xray:PutTelemetryRecords': 'X-Ray has no resource-level permissions for telemetry records',
};

let resources: Resources;
let allows: FoundStatement[];

beforeAll(() => {
  ({ resources } = synthSwitchboard());
  allows = policyStatements(resources).filter(({ statement }) => statement.Effect === 'Allow');
});

/** The actions each function role is allowed, by the role's logical id prefix. */
function actionsOf(rolePrefix: string): Set<string> {
  const policies = allows.filter(
    ({ logicalId, type }) => type === 'AWS::IAM::Policy' && logicalId.startsWith(rolePrefix),
  );
  expect(policies.length).toBeGreaterThan(0);
  return new Set(policies.flatMap(({ statement }) => asList(statement.Action) as string[]));
}

describe('Switchboard IAM', () => {
  it('checks one identity policy per function', () => {
    const policies = new Set(
      allows.filter(({ type }) => type === 'AWS::IAM::Policy').map((s) => s.logicalId),
    );
    expect(policies.size).toBe(4);
  });

  it('no statement allows every action, or every action of a service', () => {
    for (const { logicalId, statement } of allows) {
      for (const action of asList(statement.Action)) {
        expect(action, logicalId).not.toBe('*');
        expect(action, logicalId).not.toMatch(/^[a-z0-9-]+:\*$/);
      }
    }
  });

  it('every statement on Resource "*" is one AWS requires', () => {
    const onStar = allows.filter(({ statement }) => asList(statement.Resource).includes('*'));
    expect(onStar.length).toBeGreaterThan(0);
    for (const { logicalId, statement } of onStar) {
      for (const action of asList(statement.Action) as string[]) {
        expect(STAR_RESOURCE_ALLOWED[action], `${logicalId}: ${action} on "*"`).toBeDefined();
      }
    }
  });

  it('function roles use no managed policies, so logs go only to their own log group', () => {
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::IAM::Role') continue;
      expect(resource.Properties?.ManagedPolicyArns, id).toBeUndefined();
    }
  });

  it('only the HTTP and WebSocket functions may enqueue turns, and only the worker consumes them', () => {
    for (const prefix of ['SwitchboardHttpFunctionRole', 'SwitchboardWebSocketFunctionRole']) {
      expect(actionsOf(prefix).has('sqs:SendMessage'), prefix).toBe(true);
    }
    for (const prefix of ['SwitchboardWorkerFunctionRole', 'SwitchboardSweepFunctionRole']) {
      expect(actionsOf(prefix).has('sqs:SendMessage'), prefix).toBe(false);
    }
    expect(actionsOf('SwitchboardWorkerFunctionRole').has('sqs:ReceiveMessage')).toBe(true);
    expect(actionsOf('SwitchboardHttpFunctionRole').has('sqs:ReceiveMessage')).toBe(false);
  });

  it('the WebSocket, worker and sweep functions may post to connections; the HTTP function may not', () => {
    for (const prefix of ['WebSocket', 'Worker', 'Sweep']) {
      expect(actionsOf(`Switchboard${prefix}FunctionRole`).has('execute-api:ManageConnections'), prefix).toBe(
        true,
      );
    }
    expect(actionsOf('SwitchboardHttpFunctionRole').has('execute-api:ManageConnections')).toBe(false);
    const grants = allows.filter(({ statement }) => statement.Action === 'execute-api:ManageConnections');
    for (const { statement } of grants)
      expect(JSON.stringify(statement.Resource)).toContain('/live/*/@connections/*');
  });

  it('only the HTTP and worker functions touch the file bucket', () => {
    expect(actionsOf('SwitchboardHttpFunctionRole').has('s3:PutObject')).toBe(true);
    expect(actionsOf('SwitchboardWorkerFunctionRole').has('s3:PutObject')).toBe(true);
    expect([...actionsOf('SwitchboardWebSocketFunctionRole')].some((a) => a.startsWith('s3:'))).toBe(false);
    expect([...actionsOf('SwitchboardSweepFunctionRole')].some((a) => a.startsWith('s3:'))).toBe(false);
  });

  it('no function may scan the table', () => {
    for (const prefix of ['Http', 'WebSocket', 'Worker', 'Sweep']) {
      const actions = actionsOf(`Switchboard${prefix}FunctionRole`);
      expect(actions.has('dynamodb:Query'), prefix).toBe(true);
      expect(actions.has('dynamodb:Scan'), prefix).toBe(false);
    }
  });
});
