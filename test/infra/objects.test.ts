import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { Switchboard } from '../../infra/switchboard.ts';
import { FUNCTION_PERMISSIONS, type FunctionName, OBJECT_PREFIXES } from '../../lib/config/index.ts';
import {
  asList,
  FIXTURE_AGENTS,
  idsOfType,
  newStack,
  policyStatements,
  type Resources,
  refOf,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
  TEST_AUTH,
} from './template-helpers.ts';

/** Each entry point's role, by its logical id stem. */
const ROLE_IDS: Record<FunctionName, string> = {
  http: 'SwitchboardHttpFunctionRole',
  ws: 'SwitchboardWebSocketFunctionRole',
  worker: 'SwitchboardWorkerFunctionRole',
  sweep: 'SwitchboardSweepFunctionRole',
  authorizer: 'SwitchboardAuthorizerFunctionRole',
  agui: 'SwitchboardAgUiFunctionRole',
};

/** `{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/files/*']] }` → `files/*`, when it is the file bucket's. */
function objectPattern(resource: unknown, bucket: string): string | undefined {
  const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join || refOf(join[1][0]) !== bucket) return undefined;
  return (join[1].slice(1) as string[]).join('').replace(/^\//, '');
}

/** What a role may do to the file bucket's objects: `action@pattern`. */
function objectGrants(resources: Resources, role: string, bucket: string): string[] {
  const grants: string[] = [];
  for (const { logicalId, statement } of policyStatements(resources)) {
    const roles = asList(resources[logicalId]?.Properties?.Roles).map(refOf);
    if (!roles.includes(role)) continue;
    for (const resource of asList(statement.Resource)) {
      const pattern = objectPattern(resource, bucket);
      if (pattern === undefined) continue;
      for (const action of asList(statement.Action)) grants.push(`${action}@${pattern}`);
    }
  }
  return grants.sort();
}

describe("each function's S3 grant, by key prefix", () => {
  it.each([
    ['built-in auth', false],
    ['anonymous', true],
  ])('names only the prefixes of the permission list, never the whole bucket (%s)', (_, anonymous) => {
    const { resources } = synthSwitchboard({ anonymous });
    const [bucket] = idsOfType(resources, 'AWS::S3::Bucket');
    const roles = idsOfType(resources, 'AWS::IAM::Role');
    for (const [name, stem] of Object.entries(ROLE_IDS) as [FunctionName, string][]) {
      const role = roles.find((id) => id.startsWith(stem));
      if (!role) continue;
      const expected = FUNCTION_PERMISSIONS[name]
        .filter((grant) => grant.resource === 'objects')
        .flatMap((grant) => grant.actions.flatMap((a) => (grant.prefixes ?? []).map((p) => `${a}@${p}*`)))
        .sort();
      const granted = objectGrants(resources, role, bucket as string);
      expect(granted, name).toEqual(expected);
      expect(
        granted.some((g) => g.endsWith('@*')),
        name,
      ).toBe(false);
    }
  });

  it('scopes every object grant of the list to prefixes the runtime writes', () => {
    for (const [name, grants] of Object.entries(FUNCTION_PERMISSIONS)) {
      for (const grant of grants.filter((g) => g.resource === 'objects')) {
        expect(grant.prefixes?.length, name).toBeGreaterThan(0);
        for (const prefix of grant.prefixes ?? []) expect(OBJECT_PREFIXES, name).toContain(prefix);
      }
    }
    // The sweep writes tombstones and deletes orphans under files/, reads the large requests it
    // lapses, and nothing else.
    expect(FUNCTION_PERMISSIONS.sweep.filter((g) => g.resource === 'objects')).toEqual([
      { resource: 'objects', actions: ['s3:PutObject', 's3:DeleteObject'], prefixes: ['files/'] },
      { resource: 'objects', actions: ['s3:GetObject'], prefixes: ['actions/'] },
    ]);
  });
});

describe('objectAuditTrail', () => {
  let trails: Record<'auth' | 'anonymous', Resources>;

  beforeAll(() => {
    const synth = (anonymous: boolean) => {
      const stack = newStack();
      new Switchboard(stack, 'Switchboard', {
        agents: FIXTURE_AGENTS,
        objectAuditTrail: true,
        ...(anonymous ? { allowAnonymous: true } : { auth: TEST_AUTH }),
      });
      return Template.fromStack(stack).toJSON().Resources as Resources;
    };
    trails = { auth: synth(false), anonymous: synth(true) };
  }, SYNTH_TIMEOUT_MS);

  it.each([
    ['built-in auth', false],
    ['anonymous', true],
  ])('is off by default: no trail (%s)', (_, anonymous) => {
    expect(idsOfType(synthSwitchboard({ anonymous }).resources, 'AWS::CloudTrail::Trail')).toEqual([]);
  });

  it.each(['auth', 'anonymous'] as const)(
    'records the data events of the file bucket only, in a trail of this region (%s)',
    (variant) => {
      const resources = trails[variant];
      const [trailId] = idsOfType(resources, 'AWS::CloudTrail::Trail');
      const trail = resources[trailId as string]?.Properties as {
        IsMultiRegionTrail: boolean;
        IncludeGlobalServiceEvents: boolean;
        EnableLogFileValidation: boolean;
        IsLogging: boolean;
        S3BucketName: unknown;
        EventSelectors: {
          IncludeManagementEvents: boolean;
          ReadWriteType: string;
          DataResources: { Type: string; Values: unknown[] }[];
        }[];
      };
      expect(trail).toMatchObject({
        IsMultiRegionTrail: false,
        IncludeGlobalServiceEvents: false,
        EnableLogFileValidation: true,
        IsLogging: true,
      });
      const [files] = idsOfType(resources, 'AWS::S3::Bucket').filter((id) =>
        id.startsWith('SwitchboardFiles'),
      );
      const selectors = trail.EventSelectors;
      expect(selectors).toHaveLength(1);
      expect(selectors[0]).toMatchObject({ IncludeManagementEvents: false, ReadWriteType: 'All' });
      const [data] = selectors[0]?.DataResources ?? [];
      expect(data?.Type).toBe('AWS::S3::Object');
      expect(data?.Values).toHaveLength(1);
      // `<file bucket ARN>/`: every object of this bucket, and no other bucket.
      const value = data?.Values[0] as { 'Fn::Join': [string, unknown[]] };
      expect(refOf(value['Fn::Join'][1][0])).toBe(files);
      expect(value['Fn::Join'][1].slice(1)).toEqual(['/']);
      // Its log files go to a bucket of its own, versioned, not readable by the public.
      const logs = refOf(trail.S3BucketName) as string;
      expect(logs).not.toBe(files);
      expect(resources[logs]?.Properties).toMatchObject({
        VersioningConfiguration: { Status: 'Enabled' },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true },
      });
    },
  );
});
