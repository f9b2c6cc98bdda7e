import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { bucketRetention } from '../../infra/storage.ts';
import { Switchboard } from '../../infra/switchboard.ts';
import { FIXTURE_AGENTS, newStack, SYNTH_TIMEOUT_MS, TEST_AUTH } from './template-helpers.ts';

let rules: { Id?: string; Prefix?: string; ExpirationInDays?: number }[];

beforeAll(() => {
  const stack = newStack();
  new Switchboard(stack, 'Switchboard', {
    agents: FIXTURE_AGENTS,
    auth: TEST_AUTH,
    settings: {
      retention: { sessionsDays: 30, messagesDays: 7, eventsDays: 45 },
      files: { retentionDays: 90 },
    },
  });
  const [bucket] = Object.values(Template.fromStack(stack).findResources('AWS::S3::Bucket')) as {
    Properties: { LifecycleConfiguration: { Rules: typeof rules } };
  }[];
  rules = bucket?.Properties.LifecycleConfiguration.Rules ?? [];
}, SYNTH_TIMEOUT_MS);

const expiry = (prefix: string) => rules.find((rule) => rule.Prefix === prefix)?.ExpirationInDays;

describe('retention in the construct', () => {
  it("expires what messages and events moved to the bucket a day after their items' TTL, and files after theirs", () => {
    expect(expiry('messages/')).toBe(8);
    expect(expiry('attachments/')).toBe(8);
    expect(expiry('events/')).toBe(46);
    expect(expiry('files/')).toBe(91);
  });

  it('has no such rule for what is kept until deleted: messages and events follow sessionsDays when they name none', () => {
    expect(bucketRetention(undefined)).toEqual({});
    expect(bucketRetention({ retention: { sessionsDays: 10 } })).toEqual({ messages: 10, events: 10 });
  });

  it('fails at synth on a retention that cannot work, naming the setting', () => {
    expect(() => bucketRetention({ retention: { sessionsDays: 30, eventsDays: 1 } })).toThrow(
      /settings\.retention\.eventsDays is not valid: must be at least retention\.sessionsDays/,
    );
    expect(() => bucketRetention({ retention: { sessionsDays: -1 } })).toThrow(
      /settings\.retention\.sessionsDays is not valid/,
    );
  });
});
