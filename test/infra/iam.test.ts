import { beforeAll, describe, expect, it } from 'vitest';
import {
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  type FunctionName,
  type ResourceKind,
} from '../../lib/config/index.ts';
import { type Need, sdkCallsOf } from './sdk-calls.ts';
import {
  asList,
  BEDROCK_MODEL_ARNS,
  type FoundStatement,
  MODEL_KEY_SECRETS,
  policyStatements,
  type Resources,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
} from './template-helpers.ts';

/** Actions that AWS offers only on `Resource: "*"`, with the reason. Anything else must name its resource. */
const STAR_RESOURCE_ALLOWED: Record<string, string> = {
  'xray:PutTraceSegments': 'X-Ray has no resource-level permissions for sending trace segments',
  'xray:PutTelemetryRecords': 'X-Ray has no resource-level permissions for telemetry records',
  'xray:PutSpans': "X-Ray's OTLP endpoint takes spans with it, and it has no resource-level permissions",
  'xray:PutSpansForIndexing': 'the spans Transaction Search indexes; no resource-level permissions either',
};

/** The functions that export spans: every one but the `$connect` authoriser, which builds no runtime. */
const TRACED: readonly FunctionName[] = FUNCTION_NAMES.filter((fn) => fn !== 'authorizer');

/** The secret of the team endpoint's headers in {@link TEAM_TRACING}, named without its six random characters. */
const TEAM_HEADERS_SECRET = 'observability/otlp-headers';
const TEAM_TRACING = {
  endpoint: 'https://otlp.example.com/v1/traces',
  headersSecret: TEAM_HEADERS_SECRET,
  sampleRatio: 0.25,
} as const;

let resources: Resources;
let allows: FoundStatement[];
/** The same stack without the `models` prop. */
let withoutModels: FoundStatement[];

const allowsOf = (r: Resources) =>
  policyStatements(r).filter(({ statement }) => statement.Effect === 'Allow');

beforeAll(() => {
  // With the `models` prop, so that every kind of grant the permission list declares is in the template.
  ({ resources } = synthSwitchboard({ models: true }));
  allows = allowsOf(resources);
  withoutModels = allowsOf(synthSwitchboard().resources);
}, SYNTH_TIMEOUT_MS);

/**
 * What the worker is granted for the agents module's own code, which the fixture agents do not hold:
 * an AI SDK agent on the SDK's Bedrock provider streams (ConverseStream) from the models of the
 * `models.bedrock` prop.
 */
const AGENT_NEEDS: Partial<Record<FunctionName, readonly Need[]>> = {
  worker: ['bedrock:InvokeModelWithResponseStream@bedrockModels'],
};

/** The logical id prefix of each function's role. */
const ROLE_PREFIX: Record<FunctionName, string> = {
  http: 'SwitchboardHttpFunctionRole',
  ws: 'SwitchboardWebSocketFunctionRole',
  worker: 'SwitchboardWorkerFunctionRole',
  sweep: 'SwitchboardSweepFunctionRole',
  authorizer: 'SwitchboardAuthorizerFunctionRole',
  agui: 'SwitchboardAgUiFunctionRole',
};

/** Which kind of Switchboard resource a statement's resource names; undefined for logs and X-Ray. */
function kindOf(resource: unknown): ResourceKind | undefined {
  const text = JSON.stringify(resource);
  if (text.includes('@connections')) return 'connections';
  if (/"SwitchboardEventBus[0-9A-F]+"/.test(text)) return 'eventBus';
  if (/"SwitchboardRefKey[0-9A-F]+"/.test(text)) return 'refKeySecret';
  if (
    new RegExp(`"${MODEL_KEY_SECRETS.created}[0-9A-F]+"|secret:${MODEL_KEY_SECRETS.named}-\\?{6}`).test(text)
  )
    return 'modelSecrets';
  if (text.includes(':bedrock:')) return 'bedrockModels';
  if (text.includes('/index/gsi1')) return 'sweepIndex';
  if (text.includes('/index/gsi2')) return 'ownerIndex';
  if (/"SwitchboardTable[0-9A-F]+"/.test(text)) return 'table';
  if (/"SwitchboardTurns[0-9A-F]+"/.test(text)) return 'queue';
  if (/"SwitchboardFiles[0-9A-F]+"/.test(text)) return text.includes('/*') ? 'objects' : 'bucket';
  return undefined;
}

/** What a function role is allowed on Switchboard's resources, as `action@kind`. */
function grantsOf(rolePrefix: string, statements = allows): Set<string> {
  const policies = statements.filter(
    ({ logicalId, type }) => type === 'AWS::IAM::Policy' && logicalId.startsWith(rolePrefix),
  );
  expect(policies.length).toBeGreaterThan(0);
  const grants = new Set<string>();
  for (const { statement } of policies) {
    for (const resource of asList(statement.Resource)) {
      const kind = kindOf(resource);
      if (kind) for (const action of asList(statement.Action)) grants.add(`${action}@${kind}`);
    }
  }
  return grants;
}

/** The actions each function role is allowed, by the role's logical id prefix. */
function actionsOf(rolePrefix: string): Set<string> {
  return new Set([...grantsOf(rolePrefix)].map((grant) => grant.split('@')[0] as string));
}

describe('Switchboard IAM', () => {
  it('checks one identity policy per function', () => {
    const policies = new Set(
      allows.filter(({ type }) => type === 'AWS::IAM::Policy').map((s) => s.logicalId),
    );
    expect(policies.size).toBe(FUNCTION_NAMES.length);
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

  it('each role allows exactly what lib/config/permissions.ts declares for its function', () => {
    for (const fn of FUNCTION_NAMES) {
      const declared = FUNCTION_PERMISSIONS[fn].flatMap(({ resource, actions }) =>
        actions.map((action) => `${action}@${resource}`),
      );
      expect([...grantsOf(ROLE_PREFIX[fn])].sort(), fn).toEqual([...new Set(declared)].sort());
    }
  });

  it.each(FUNCTION_NAMES)('the %s function is granted what its code calls, and nothing else', async (fn) => {
    const { commands, needs } = await sdkCallsOf(fn);
    for (const need of AGENT_NEEDS[fn] ?? []) needs.add(need);
    // The `$connect` authoriser calls no AWS service; every other function does.
    if (fn === 'authorizer') expect(commands, fn).toEqual([]);
    else expect(commands.length, fn).toBeGreaterThan(0);
    const granted = grantsOf(ROLE_PREFIX[fn]);
    const missing = [...needs].filter((need) => !granted.has(need));
    const unused = [...granted].filter((grant) => !needs.has(grant as Need));
    expect({ missing, unused }, `${fn} calls ${commands.join(', ')}`).toEqual({ missing: [], unused: [] });
  });

  it('the sweep may send to the turns queue: it resumes lapsed approvals and requeues lost runs', () => {
    expect(grantsOf(ROLE_PREFIX.sweep).has('sqs:SendMessage@queue')).toBe(true);
  });

  it('the WebSocket function may read and write files: it takes the same messages as the HTTP one', () => {
    const ws = grantsOf(ROLE_PREFIX.ws);
    expect(ws.has('s3:GetObject@objects') && ws.has('s3:PutObject@objects')).toBe(true);
  });

  it("the management API grant covers only this stage's @connections", () => {
    const grants = allows.filter(({ statement }) => statement.Action === 'execute-api:ManageConnections');
    expect(grants.length).toBe(3);
    for (const { statement } of grants)
      expect(JSON.stringify(statement.Resource)).toContain('/live/*/@connections/*');
  });

  it("only the functions that publish domain events may put events, on the stack's bus only", () => {
    const grants = allows.filter(({ statement }) => asList(statement.Action).includes('events:PutEvents'));
    expect(grants.map((g) => g.logicalId.replace(/FunctionRole.*$/, '')).sort()).toEqual([
      'SwitchboardAgUi',
      'SwitchboardHttp',
      'SwitchboardSweep',
      'SwitchboardWebSocket',
      'SwitchboardWorker',
    ]);
    for (const { statement } of grants) expect(kindOf(statement.Resource)).toBe('eventBus');
  });

  it('grants the worker, and no other function, exactly what the models prop names: its key secrets and Bedrock models', () => {
    const onModels = (statements: FoundStatement[]) =>
      statements.filter(({ statement }) =>
        asList(statement.Resource).some((r) => ['modelSecrets', 'bedrockModels'].includes(kindOf(r) ?? '')),
      );
    expect(onModels(withoutModels)).toEqual([]);
    for (const fn of FUNCTION_NAMES.filter((f) => f !== 'worker')) {
      expect([...grantsOf(ROLE_PREFIX[fn], withoutModels)].filter((g) => g.startsWith('bedrock:'))).toEqual(
        [],
      );
    }
    const granted = onModels(allows);
    expect(new Set(granted.map((g) => g.logicalId.replace(/FunctionRole.*$/, '')))).toEqual(
      new Set(['SwitchboardWorker']),
    );
    const bedrock = granted.filter(({ statement }) =>
      asList(statement.Action).some((a) => String(a).startsWith('bedrock:')),
    );
    expect(bedrock.flatMap(({ statement }) => asList(statement.Action))).toEqual([
      'bedrock:InvokeModelWithResponseStream',
    ]);
    expect(bedrock.flatMap(({ statement }) => asList(statement.Resource)).sort()).toEqual(
      [...BEDROCK_MODEL_ARNS].sort(),
    );
    const secrets = granted.filter(({ statement }) =>
      asList(statement.Action).includes('secretsmanager:GetSecretValue'),
    );
    const named = secrets.flatMap(({ statement }) =>
      asList(statement.Resource).map((r) => JSON.stringify(r)),
    );
    expect(named).toHaveLength(2);
    expect(named.some((r) => r.includes(`"${MODEL_KEY_SECRETS.created}`))).toBe(true);
    expect(named.some((r) => r.includes(`secret:${MODEL_KEY_SECRETS.named}-??????`))).toBe(true);
  });

  it('lets every traced function export spans to X-Ray (PutSpans, PutSpansForIndexing on "*"), and the authoriser only Lambda\'s own segments', () => {
    for (const fn of FUNCTION_NAMES) {
      const onStar = allows
        .filter(({ logicalId, type }) => type === 'AWS::IAM::Policy' && logicalId.startsWith(ROLE_PREFIX[fn]))
        .filter(({ statement }) => asList(statement.Resource).includes('*'))
        .flatMap(({ statement }) => asList(statement.Action) as string[]);
      // Lambda's active tracing: its segment of each invocation, sent by Lambda with the role.
      expect(onStar, fn).toEqual(
        expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
      );
      const exports = onStar.filter((action) => action.startsWith('xray:PutSpans'));
      expect(exports.sort(), fn).toEqual(
        TRACED.includes(fn) ? ['xray:PutSpans', 'xray:PutSpansForIndexing'] : [],
      );
    }
  });

  it("with a team's endpoint: no X-Ray grant at all, and each traced function reads the headers secret, that one only", () => {
    const { resources: team } = synthSwitchboard({ tracing: TEAM_TRACING });
    const teamAllows = allowsOf(team);
    expect(
      teamAllows.filter(({ statement }) =>
        asList(statement.Action).some((a) => String(a).startsWith('xray:')),
      ),
    ).toEqual([]);
    const onSecret = teamAllows.filter(({ statement }) =>
      asList(statement.Resource).some((r) =>
        JSON.stringify(r).includes(`secret:${TEAM_HEADERS_SECRET}-??????`),
      ),
    );
    expect(new Set(onSecret.map((g) => g.logicalId.replace(/Role.*$/, 'Role')))).toEqual(
      new Set(TRACED.map((fn) => `${ROLE_PREFIX[fn]}`)),
    );
    for (const { statement } of onSecret) {
      expect(asList(statement.Action)).toEqual(['secretsmanager:GetSecretValue']);
      // CDK merges it with the role's other secret reads (the session-ref key): those stay what they were.
      const others = asList(statement.Resource).filter(
        (r) => !JSON.stringify(r).includes(`secret:${TEAM_HEADERS_SECRET}-??????`),
      );
      for (const other of others) expect(kindOf(other)).toBe('refKeySecret');
    }
    // Lambda's active tracing sends to X-Ray, not to the team's backend: it is off.
    for (const [id, resource] of Object.entries(team)) {
      if (resource.Type === 'AWS::Lambda::Function')
        expect((resource.Properties?.TracingConfig as { Mode?: string } | undefined)?.Mode, id).not.toBe(
          'Active',
        );
    }
  });

  it('no function may scan the table', () => {
    for (const prefix of ['Http', 'WebSocket', 'Worker', 'Sweep']) {
      const actions = actionsOf(`Switchboard${prefix}FunctionRole`);
      expect(actions.has('dynamodb:Query'), prefix).toBe(true);
      expect(actions.has('dynamodb:Scan'), prefix).toBe(false);
    }
  });
});
