import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { TURNS_MAX_RECEIVE_COUNT } from '../lib/config/index.ts';
import { INDEXES, OWNER_INDEX_ATTRIBUTES } from '../lib/store/index.ts';
import { installConditionCheckItems } from './dynalite-fidelity.ts';
import { installFifoBatches } from './fauxqs-fifo.ts';
import { startFauxqsServer } from './fauxqs-server.ts';
import { loopbackOnly } from './host-check.ts';

/** Names of the sandbox's resources, the same ones the CDK stack creates. */
export const SANDBOX_NAMES = {
  table: 'switchboard',
  queue: 'switchboard-turns.fifo',
  dlq: 'switchboard-turns-dlq.fifo',
  bucket: 'switchboard-files',
  /** The EventBridge bus of the domain events (sandbox/event-bus.ts). */
  eventBus: 'switchboard-events',
  /** The secret of the session-ref key (sandbox/secrets-manager.ts). */
  refKeySecret: 'switchboard-ref-key',
  /** The sweep's index (infra/storage.ts's SWEEP_INDEX_NAME). */
  index: INDEXES.sweep,
  /** The owner index (infra/storage.ts's OWNER_INDEX_NAME). */
  ownerIndex: INDEXES.owner,
};

/** Fixed credentials: the emulators accept any, the SDK insists on some. */
export const SANDBOX_CREDENTIALS = { accessKeyId: 'sandbox', secretAccessKey: 'sandbox' };
export const SANDBOX_REGION = 'us-east-1';

/** The local AWS services: DynamoDB (dynalite) and SQS + S3 (fauxqs). */
export interface LocalServices {
  dynamodbEndpoint: string;
  awsEndpoint: string;
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  stop(): Promise<void>;
}

/** The table as the CDK stack defines it: pk/sk, and the due-item index the sweep queries. */
async function ensureTable(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: SANDBOX_REGION, credentials: SANDBOX_CREDENTIALS });
  try {
    await client.send(
      new CreateTableCommand({
        TableName: SANDBOX_NAMES.table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((AttributeName) => ({
          AttributeName,
          AttributeType: 'S',
        })),
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: SANDBOX_NAMES.index,
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
          {
            IndexName: SANDBOX_NAMES.ownerIndex,
            KeySchema: [
              { AttributeName: 'gsi2pk', KeyType: 'HASH' },
              { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...OWNER_INDEX_ATTRIBUTES] },
          },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: SANDBOX_NAMES.table }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  client.destroy();
}

/**
 * Starts dynalite (in memory, or on disk under `dataDir`) and fauxqs on free ports, with the
 * table, the FIFO turns queue and its dead-letter queue, and the files bucket.
 */
export async function startLocalServices(options: {
  dataDir?: string;
  visibilityTimeoutSeconds?: number;
  maxReceiveCount?: number;
}): Promise<LocalServices> {
  installConditionCheckItems();
  const dynamo = loopbackOnly(
    dynalite({
      createTableMs: 0,
      deleteTableMs: 0,
      updateTableMs: 0,
      ...(options.dataDir && { path: options.dataDir }),
    }),
  );
  await new Promise<void>((resolve) => dynamo.listen(0, '127.0.0.1', resolve));
  const dynamodbEndpoint = `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`;
  await ensureTable(dynamodbEndpoint);
  await installFifoBatches();
  const faux = await startFauxqsServer(SANDBOX_REGION);
  const dlq = faux.createQueue(SANDBOX_NAMES.dlq, { FifoQueue: 'true' });
  const queue = faux.createQueue(SANDBOX_NAMES.queue, {
    FifoQueue: 'true',
    VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
    RedrivePolicy: JSON.stringify({
      deadLetterTargetArn: dlq.queueArn,
      maxReceiveCount: options.maxReceiveCount ?? TURNS_MAX_RECEIVE_COUNT,
    }),
  });
  faux.createBucket(SANDBOX_NAMES.bucket);
  return {
    dynamodbEndpoint,
    awsEndpoint: faux.address,
    queueUrl: queue.queueUrl,
    queueArn: queue.queueArn,
    dlqUrl: dlq.queueUrl,
    async stop() {
      await faux.stop();
      await new Promise<void>((resolve) => dynamo.close(() => resolve()));
    },
  };
}
