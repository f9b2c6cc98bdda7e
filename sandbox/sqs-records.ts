import type { Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

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
 * Which records to delete after a batch, the way the Lambda event source decides with
 * `ReportBatchItemFailures`: none when the handler's response is not a valid partial batch response
 * (an item identifier that is empty, not a string, or not a message of the batch); otherwise every
 * record it did not report. On a FIFO queue too: keeping a group's order after a failure is the
 * function's job (it reports the failed record and every later one of its group), not the event
 * source's.
 */
export function recordsToDelete(records: SQSRecord[], response: SQSBatchResponse | undefined): SQSRecord[] {
  const failures = response?.batchItemFailures ?? [];
  const ids = new Set(records.map((record) => record.messageId));
  const failed = new Set<unknown>(failures.map((item) => item?.itemIdentifier));
  if ([...failed].some((id) => typeof id !== 'string' || !ids.has(id))) return [];
  return records.filter((record) => !failed.has(record.messageId));
}
