import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type {
  Context,
  SQSBatchResponse,
  SQSEvent,
  SQSMessageAttributes,
  SQSRecord,
  SQSRecordAttributes,
} from 'aws-lambda';
import { createLambdaContext } from './lambda-context.ts';

/** Options of {@link startSqsPoller}. */
export interface SqsPollerOptions {
  /** A client with an explicit `endpoint` and `useQueueUrlAsEndpoint: false`. */
  sqs: SQSClient;
  queueUrl: string;
  /** Default: read from the queue with GetQueueAttributes. */
  queueArn?: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler declared `Promise<void>` must fit.
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | void>;
  /** 1 to 10 (one ReceiveMessage call per batch). Default 10. */
  batchSize?: number;
  /** Long-poll wait; also the longest `stop()` waits for an idle poll. Default 1. */
  waitTimeSeconds?: number;
  /** Overrides the queue's visibility timeout for received messages. */
  visibilityTimeout?: number;
  /** Batches in flight at once, like Lambda's concurrent pollers. Default 1. */
  concurrency?: number;
  /** Default 'worker'. */
  functionName?: string;
  /** The function timeout `context.getRemainingTimeInMillis()` counts down from. Default 900 000. */
  timeoutMs?: number;
}

/** A running poller. */
export interface SqsPoller {
  /** Stops polling and waits for the batches in flight. */
  stop(): Promise<void>;
}

// The optional system attributes the Lambda event source passes on; others SQS may return are dropped.
const OPTIONAL_ATTRIBUTES = [
  'AWSTraceHeader',
  'SequenceNumber',
  'MessageGroupId',
  'MessageDeduplicationId',
  'DeadLetterQueueSourceArn',
] as const;

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function messageAttributes(message: Message): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    out[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map(base64),
      dataType: value.DataType ?? 'String',
    };
  }
  return out;
}

/** One SQS message as the Lambda event source hands it over. */
export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const given = message.Attributes ?? {};
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: given.ApproximateReceiveCount ?? '1',
    SentTimestamp: given.SentTimestamp ?? '',
    SenderId: given.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: given.ApproximateFirstReceiveTimestamp ?? '',
  };
  for (const name of OPTIONAL_ATTRIBUTES) {
    const value = given[name];
    if (value !== undefined) attributes[name] = value;
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes: messageAttributes(message),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(':')[3] ?? '',
  };
}

/**
 * Which records to delete after a batch, the way the Lambda event source decides: none when the
 * handler threw or reported an id that is not in the batch; otherwise all but the reported
 * failures, and on a FIFO queue also all but the later messages of a failed message's group.
 */
export function recordsToDelete(
  records: SQSRecord[],
  response: SQSBatchResponse | undefined,
  fifo: boolean,
): SQSRecord[] {
  const failures = response?.batchItemFailures ?? [];
  const failed = new Set(failures.map((item) => item.itemIdentifier));
  const ids = new Set(records.map((record) => record.messageId));
  if ([...failed].some((id) => typeof id !== 'string' || !ids.has(id))) return [];
  const blockedGroups = new Set<string>();
  return records.filter((record) => {
    const group = record.attributes.MessageGroupId;
    if (fifo && group !== undefined && blockedGroups.has(group)) return false;
    if (!failed.has(record.messageId)) return true;
    if (fifo && group !== undefined) blockedGroups.add(group);
    return false;
  });
}

async function resolveQueueArn(options: SqsPollerOptions): Promise<string> {
  if (options.queueArn) return options.queueArn;
  const { Attributes } = await options.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  if (!Attributes?.QueueArn) throw new Error(`No QueueArn for ${options.queueUrl}`);
  return Attributes.QueueArn;
}

function validate(options: SqsPollerOptions): void {
  const { batchSize = 10, waitTimeSeconds = 1, concurrency = 1 } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10)
    throw new Error('batchSize must be 1 to 10');
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 0 || waitTimeSeconds > 20) {
    throw new Error('waitTimeSeconds must be 0 to 20');
  }
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error('concurrency must be a positive integer');
}

/**
 * Feeds an SQS queue to a Lambda handler like the SQS event source with
 * `ReportBatchItemFailures`: successes are deleted, failures come back after their visibility
 * timeout, and a handler that throws fails the whole batch.
 *
 * @example
 * const poller = await startSqsPoller({ sqs, queueUrl, handler: worker.handler });
 * await poller.stop();
 */
export async function startSqsPoller(options: SqsPollerOptions): Promise<SqsPoller> {
  validate(options);
  const { sqs, queueUrl, handler } = options;
  const queueArn = await resolveQueueArn(options);
  const fifo = queueUrl.endsWith('.fifo');
  const region = queueArn.split(':')[3];
  let running = true;

  async function runBatch(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toSqsRecord(message, queueArn));
    const context = createLambdaContext({
      functionName: options.functionName ?? 'worker',
      timeoutMs: options.timeoutMs ?? 900_000,
      ...(region ? { region } : {}),
    });
    let response: SQSBatchResponse | undefined;
    try {
      response = (await handler({ Records: records }, context)) ?? undefined;
    } catch (error) {
      console.error('[sqs-poller] batch failed, every message will be retried:', error);
      return;
    }
    const done = recordsToDelete(records, response, fifo);
    if (done.length === 0) return;
    const { Failed } = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: done.map((record, i) => ({ Id: String(i), ReceiptHandle: record.receiptHandle })),
      }),
    );
    if (Failed?.length) console.error('[sqs-poller] could not delete:', Failed);
  }

  async function poll(): Promise<void> {
    while (running) {
      try {
        const { Messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: options.batchSize ?? 10,
            WaitTimeSeconds: options.waitTimeSeconds ?? 1,
            ...(options.visibilityTimeout !== undefined
              ? { VisibilityTimeout: options.visibilityTimeout }
              : {}),
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        // Received after stop(): leave them to come back after their visibility timeout, as a
        // Lambda event source being shut down would, rather than start turns nobody will stop.
        if (Messages?.length && running) await runBatch(Messages);
      } catch (error) {
        if (!running) return;
        console.error('[sqs-poller] poll failed:', error);
        // Without a pause a queue that is down turns this loop into a busy spin.
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  const loops = Array.from({ length: options.concurrency ?? 1 }, () => poll());
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}
