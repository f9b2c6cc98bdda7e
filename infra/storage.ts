import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { ReadWriteType, Trail } from 'aws-cdk-lib/aws-cloudtrail';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  HttpMethods,
  type LifecycleRule,
} from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import {
  DeduplicationScope,
  FifoThroughputLimit,
  Queue,
  QueueEncryption,
  RedrivePermission,
} from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { RetentionSettingsSchema, TURNS_MAX_RECEIVE_COUNT } from '../lib/config/index.ts';
import { FILE_BUCKET_CORS } from '../lib/contract/index.ts';
import { INDEXES, OWNER_INDEX_ATTRIBUTES } from '../lib/store/index.ts';

/** The sweep's index: items that expire, keyed by their expiry bucket (see docs/deployment.md). */
export const SWEEP_INDEX_NAME = INDEXES.sweep;

/** The owner index: sessions and files under their owner, in creation order, without a scan. */
export const OWNER_INDEX_NAME = INDEXES.owner;

export { TURNS_MAX_RECEIVE_COUNT };

/**
 * The single table. Keys are generic strings so every entity fits; `ttl` is set here, never by code,
 * because the local emulator has no `UpdateTimeToLive`.
 */
export function createTable(scope: Construct, removalPolicy: RemovalPolicy): TableV2 {
  const string = AttributeType.STRING;
  return new TableV2(scope, 'Table', {
    partitionKey: { name: 'pk', type: string },
    sortKey: { name: 'sk', type: string },
    billing: Billing.onDemand(),
    timeToLiveAttribute: 'ttl',
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    globalSecondaryIndexes: [
      {
        indexName: SWEEP_INDEX_NAME,
        partitionKey: { name: 'gsi1pk', type: string },
        sortKey: { name: 'gsi1sk', type: string },
        projectionType: ProjectionType.ALL,
      },
      {
        indexName: OWNER_INDEX_NAME,
        partitionKey: { name: 'gsi2pk', type: string },
        sortKey: { name: 'gsi2sk', type: string },
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...OWNER_INDEX_ATTRIBUTES],
      },
    ],
    removalPolicy,
  });
}

/**
 * The session-ref key (lib/auth/session-ref.ts): made by CloudFormation, so no person or pipeline
 * ever holds it. 64 letters and digits are 64 bytes, twice the runtime's minimum. It goes with the
 * table's removal policy because every ref in the table is keyed with it: losing the key orphans
 * every session. Not rotated: a new key would change every ref. Nor may the generator's options
 * change: CloudFormation would generate the secret again, with a new key.
 */
export function createRefKeySecret(scope: Construct, removalPolicy: RemovalPolicy): Secret {
  return new Secret(scope, 'RefKey', {
    description: 'Switchboard session-ref key: never rotate it, every session ref is keyed with it',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy,
  });
}

/** What the bucket keeps for a limited time, in days, from the settings a stack deploys (see {@link bucketRetention}). */
export interface BucketRetention {
  /** `files.retentionDays`: uploaded files (`files/`). */
  files?: number;
  /** `retention.messagesDays`: a message's heavy fields and its attachments (`messages/`, `attachments/`). */
  messages?: number;
  /** `retention.eventsDays`: event data too large for the table (`events/`). */
  events?: number;
}

/**
 * The retention periods of the settings a stack deploys. A bad `retention` section fails here, at
 * synth, with the setting it names.
 */
export function bucketRetention(settings: Record<string, unknown> | undefined): BucketRetention {
  const files = settings?.files as { retentionDays?: unknown } | undefined;
  const parsed = RetentionSettingsSchema.safeParse(settings?.retention ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `Switchboard: settings.retention.${issue?.path.join('.') ?? ''} is not valid: ${issue?.message}.`,
    );
  }
  const { sessionsDays, messagesDays, eventsDays } = parsed.data;
  return {
    ...(typeof files?.retentionDays === 'number' && { files: files.retentionDays }),
    ...((messagesDays ?? sessionsDays) !== undefined && { messages: messagesDays ?? sessionsDays }),
    ...((eventsDays ?? sessionsDays) !== undefined && { events: eventsDays ?? sessionsDays }),
  };
}

/**
 * Lifecycle rules that match the table's TTLs: an object goes a day after the item that names it
 * (DynamoDB's TTL deletes within about two days; a reader of the item meets the object first).
 */
function retentionRules(retention: BucketRetention): LifecycleRule[] {
  const rule = (id: string, prefix: string, days: number | undefined): LifecycleRule[] =>
    days === undefined ? [] : [{ id, prefix, expiration: Duration.days(days + 1) }];
  return [
    // Files that expire are deleted by the sweep (which gives their quota back); this is the backstop.
    ...rule('expire-files', 'files/', retention.files),
    ...rule('expire-messages', 'messages/', retention.messages),
    ...rule('expire-attachments', 'attachments/', retention.messages),
    ...rule('expire-actions', 'actions/', retention.messages),
    ...rule('expire-events', 'events/', retention.events),
  ];
}

/**
 * The file bucket. Browsers upload with presigned PUT URLs, hence CORS from any origin; the URL's
 * signature, not the origin, is what authorises an upload.
 */
export function createBucket(
  scope: Construct,
  removalPolicy: RemovalPolicy,
  destroy: boolean,
  retention: BucketRetention = {},
): Bucket {
  return new Bucket(scope, 'Files', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    lifecycleRules: [
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      // Screenshots travel through the bucket for one turn only; the worker deletes them, this is the backstop.
      { id: 'expire-screenshots', prefix: 'screenshots/', expiration: Duration.days(1) },
      ...retentionRules(retention),
      // An export too large for a response is read once through a short-lived link.
      { id: 'expire-exports', prefix: 'exports/', expiration: Duration.days(1) },
    ],
    // The rule the sandbox's S3 answers preflight by, from the one declaration.
    cors: [
      {
        allowedMethods: FILE_BUCKET_CORS.allowMethods.map((method) => HttpMethods[method as 'GET' | 'PUT']),
        allowedOrigins: [...FILE_BUCKET_CORS.allowOrigins],
        allowedHeaders: [...FILE_BUCKET_CORS.allowHeaders],
        exposedHeaders: [...(FILE_BUCKET_CORS.exposeHeaders ?? [])],
        maxAge: FILE_BUCKET_CORS.maxAgeSeconds,
      },
    ],
    removalPolicy,
    // A bucket with objects in it cannot be deleted; emptying it is only wanted when it is destroyed.
    autoDeleteObjects: destroy,
  });
}

/**
 * CloudTrail data events of the file bucket (`objectAuditTrail`): who read, wrote or deleted which
 * object, and when. One trail in this region, for this bucket's objects only (no management events:
 * an account has its own trail for those), into a versioned bucket of its own, its log files
 * validated. Presigned URLs show in it as the function role that signed them.
 */
export function createObjectAuditTrail(
  scope: Construct,
  bucket: Bucket,
  removalPolicy: RemovalPolicy,
): Trail {
  const logs = new Bucket(scope, 'AuditTrailLogs', {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    encryption: BucketEncryption.S3_MANAGED,
    versioned: true,
    // Log files are never overwritten: a noncurrent version is one deleted, kept a while to show it.
    lifecycleRules: [
      { id: 'expire-deleted-log-files', noncurrentVersionExpiration: Duration.days(90) },
      { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
    removalPolicy,
  });
  const trail = new Trail(scope, 'ObjectAuditTrail', {
    bucket: logs,
    isMultiRegionTrail: false,
    includeGlobalServiceEvents: false,
    managementEvents: ReadWriteType.NONE,
    enableFileValidation: true,
  });
  trail.addS3EventSelector([{ bucket }], {
    readWriteType: ReadWriteType.ALL,
    includeManagementEvents: false,
  });
  return trail;
}

/**
 * The turns queue and its dead-letter queue. Visibility is six times the worker timeout: Lambda's
 * guidance for an SQS event source, so a batch that is throttled and retried is not redelivered while
 * a worker still runs it. Capped at SQS's 12-hour maximum (never reached: 6 × 15 min = 90 min). The
 * long wait only applies to a batch whose worker died or timed out: the records a worker hands back
 * (failed, or no time left for them) get a visibility of seconds from the worker itself.
 */
export function createTurnsQueue(scope: Construct, workerTimeout: Duration): { queue: Queue; dlq: Queue } {
  const dlq = new Queue(scope, 'TurnsDlq', {
    fifo: true,
    retentionPeriod: Duration.days(14),
    // Said explicitly (SQS's own default, Control Tower's CT.SQS.PR.1): any queue of the account may
    // name it as its dead-letter queue. `byQueue` would name the turns queue, which names this one.
    redriveAllowPolicy: { redrivePermission: RedrivePermission.ALLOW_ALL },
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
  const visibility = Math.min(workerTimeout.toSeconds() * 6, Duration.hours(12).toSeconds());
  const queue = new Queue(scope, 'Turns', {
    fifo: true,
    contentBasedDeduplication: false,
    deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
    fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    visibilityTimeout: Duration.seconds(Math.max(visibility, workerTimeout.toSeconds() + 30)),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    deadLetterQueue: { queue: dlq, maxReceiveCount: TURNS_MAX_RECEIVE_COUNT },
  });
  return { queue, dlq };
}
