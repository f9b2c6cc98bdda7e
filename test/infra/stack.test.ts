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

  it('keeps the table, the bucket and the session-ref key when the stack is deleted unless told otherwise', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
    template.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
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
    expect(functions).toHaveLength(6);
    for (const id of functions.filter((fn) => !fn.startsWith('SwitchboardAuthorizerFunction'))) {
      const props = resources[id]?.Properties ?? {};
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      const variables = environmentOf(resources, id);
      // The AG-UI function verifies the JWT itself, as the $connect authoriser does.
      const auth = id.startsWith('SwitchboardAgUiFunction')
        ? ['SWITCHBOARD_AUTH_AUDIENCE', 'SWITCHBOARD_AUTH_ISSUER']
        : [];
      // Only the functions that identify callers read the session-ref key (test/infra/ref-key.test.ts).
      const refKey = /^Switchboard(Http|WebSocket|AgUi)Function/.test(id)
        ? ['SWITCHBOARD_REF_KEY_SECRET']
        : [];
      expect(Object.keys(variables).sort()).toEqual([
        'LOG_LEVEL',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_SERVICE_NAME',
        ...auth,
        'SWITCHBOARD_BUCKET',
        'SWITCHBOARD_EVENT_BUS',
        'SWITCHBOARD_QUEUE_URL',
        ...refKey,
        'SWITCHBOARD_SETTINGS_FILE',
        'SWITCHBOARD_TABLE',
        'SWITCHBOARD_TRACES_ENDPOINT',
        'SWITCHBOARD_TRACING',
        'SWITCHBOARD_WS_ENDPOINT',
      ]);
      // The settings are in the bundle (test/infra/settings-delivery.test.ts), not the environment.
      expect(variables.SWITCHBOARD_SETTINGS_FILE).toBe('switchboard-settings.json');
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

  it('the worker gets a long timeout, the AG-UI function a minute more to follow a run to its end', () => {
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 300, MemorySize: 512 });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 360, MemorySize: 512 });
    template.resourcePropertiesCountIs('AWS::Lambda::Function', { MemorySize: 512 }, 5);
  });

  it('serves AG-UI through a response-streaming function URL with CORS, the JWT checked by the function', () => {
    const [fn] = idsOfType(resources, 'AWS::Lambda::Function').filter((id) =>
      id.startsWith('SwitchboardAgUiFunction'),
    );
    expect(environmentOf(resources, fn ?? '')).toMatchObject({
      SWITCHBOARD_AUTH_ISSUER: TEST_AUTH.issuer,
      SWITCHBOARD_AUTH_AUDIENCE: JSON.stringify(TEST_AUTH.audience),
    });
    expect(environmentOf(resources, fn ?? '').SWITCHBOARD_ALLOW_ANONYMOUS).toBeUndefined();
    template.resourceCountIs('AWS::Lambda::Url', 1);
    template.hasResourceProperties('AWS::Lambda::Url', {
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [fn, 'Arn'] },
      Cors: {
        AllowOrigins: ['*'],
        AllowHeaders: ['content-type', 'authorization', 'accept'],
        AllowMethods: ['POST'],
        MaxAge: 3600,
      },
    });
    // A URL without IAM auth needs a resource policy letting anyone invoke the function through it.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionUrlAuthType: 'NONE',
      Principal: '*',
    });
  });

  it('outputs the API URLs, the AG-UI URL, the table, the queue, its dead-letter queue, the bucket, the key and the bus', () => {
    const outputs = Object.keys(template.toJSON().Outputs as Record<string, unknown>).sort();
    expect(outputs).toEqual([
      'SwitchboardAgUiUrl',
      'SwitchboardBucketName',
      'SwitchboardDeadLetterQueueUrl',
      'SwitchboardEventBusName',
      'SwitchboardHttpApiUrl',
      'SwitchboardQueueUrl',
      'SwitchboardRefKeySecretArn',
      'SwitchboardTableName',
      'SwitchboardWebSocketUrl',
    ]);
  });
});
