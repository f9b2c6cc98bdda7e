import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  environmentOf,
  idsOfType,
  policyStatements,
  type Resources,
  SYNTH_TIMEOUT_MS,
  synthSwitchboard,
  TEST_AUTH,
} from './template-helpers.ts';

let template: Template;
let resources: Resources;

beforeAll(() => {
  // This file's synth also runs CloudFormation's default rules, which fail it on any finding.
  ({ template, resources } = synthSwitchboard({ validate: true }));
}, SYNTH_TIMEOUT_MS);

describe('Switchboard storage and compute', () => {
  it('the turns queue is FIFO with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      ContentBasedDeduplication: false,
      DeduplicationScope: 'messageGroup',
      FifoThroughputLimit: 'perMessageGroupId',
      // Six times the default five-minute worker timeout.
      VisibilityTimeout: 1800,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 15 },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      FifoQueue: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
      RedrivePolicy: Match.absent(),
    });
  });

  it('the table has the ttl attribute, the sweep and owner indexes and point-in-time recovery', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'gsi2',
          KeySchema: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
          Projection: {
            ProjectionType: 'INCLUDE',
            NonKeyAttributes: Match.arrayWith(['sessionId', 'agentId']),
          },
        },
      ],
      Replicas: [
        Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
      ],
    });
  });

  it('keeps the table and the bucket when the stack is deleted unless told otherwise', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('the file bucket is private, TLS-only, encrypted, aborts stale multipart uploads and expires screenshots', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LifecycleConfiguration: {
        Rules: [
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
          Match.objectLike({ Prefix: 'screenshots/', ExpirationInDays: 1, Status: 'Enabled' }),
          Match.objectLike({ Prefix: 'exports/', ExpirationInDays: 1, Status: 'Enabled' }),
        ],
      },
      CorsConfiguration: {
        CorsRules: [Match.objectLike({ AllowedMethods: ['PUT', 'GET'], AllowedOrigins: ['*'] })],
      },
    });
    const tlsDenials = policyStatements(resources).filter(
      ({ type, statement }) =>
        type === 'AWS::S3::BucketPolicy' &&
        statement.Effect === 'Deny' &&
        JSON.stringify(statement).includes('aws:SecureTransport'),
    );
    expect(tlsDenials).toHaveLength(1);
  });

  it('the worker consumes the queue in batches and reports partial batch failures', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('the sweep runs once a minute', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } })],
    });
    // A failed sweep is not retried: the next tick does the same work.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 0 });
  });

  it('every function runs Node 22 on arm64 with the Switchboard configuration', () => {
    const functions = idsOfType(resources, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(5);
    for (const id of functions.filter((fn) => !fn.startsWith('SwitchboardAuthorizerFunction'))) {
      const props = resources[id]?.Properties ?? {};
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      const variables = environmentOf(resources, id);
      expect(Object.keys(variables).sort()).toEqual([
        'LOG_LEVEL',
        'POWERTOOLS_SERVICE_NAME',
        'SWITCHBOARD_BUCKET',
        'SWITCHBOARD_QUEUE_URL',
        'SWITCHBOARD_SETTINGS',
        'SWITCHBOARD_TABLE',
        'SWITCHBOARD_WS_ENDPOINT',
      ]);
      expect(variables.SWITCHBOARD_SETTINGS).toBe('{"runs":{"leaseMs":120000}}');
    }
  });

  it('the $connect authoriser knows only the issuer and the audiences, not the table, queue or bucket', () => {
    const [authorizer] = idsOfType(resources, 'AWS::Lambda::Function').filter((id) =>
      id.startsWith('SwitchboardAuthorizerFunction'),
    );
    const props = resources[authorizer ?? '']?.Properties ?? {};
    expect([props.Runtime, props.Architectures, props.Timeout, props.MemorySize]).toEqual([
      'nodejs22.x',
      ['arm64'],
      10,
      256,
    ]);
    expect(environmentOf(resources, authorizer ?? '')).toEqual({
      SWITCHBOARD_AUTH_ISSUER: TEST_AUTH.issuer,
      SWITCHBOARD_AUTH_AUDIENCE: JSON.stringify(TEST_AUTH.audience),
      POWERTOOLS_SERVICE_NAME: 'switchboard',
      LOG_LEVEL: 'INFO',
    });
  });

  it('the worker gets the longest timeout, and the same memory as the API and sweep functions', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 300, MemorySize: 512 });
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { MemorySize: 512 }, 4);
  });

  it('outputs the API URLs, the table, the queue, its dead-letter queue and the bucket', () => {
    const outputs = Object.keys(template.toJSON().Outputs as Record<string, unknown>).sort();
    expect(outputs).toEqual([
      'SwitchboardBucketName',
      'SwitchboardDeadLetterQueueUrl',
      'SwitchboardHttpApiUrl',
      'SwitchboardQueueUrl',
      'SwitchboardTableName',
      'SwitchboardWebSocketUrl',
    ]);
  });
});
