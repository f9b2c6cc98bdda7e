import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsToDelete, type SqsPoller, startSqsPoller } from '../../sandbox/sqs-poller.ts';
import { Recorder } from './helpers.ts';

describe('SQS poller', () => {
  let fauxqs: FauxqsServer;
  let sqs: SQSClient;
  let queues = 0;

  beforeAll(async () => {
    fauxqs = await startFauxqs({ port: 0, logger: false });
    sqs = new SQSClient({
      endpoint: fauxqs.address,
      useQueueUrlAsEndpoint: false,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  });
  afterAll(async () => {
    sqs.destroy();
    await fauxqs.stop();
  });

  /** A fresh FIFO queue with a 1 s visibility timeout, so retries come back quickly. */
  function fifoQueue() {
    queues += 1;
    const name = `turns-${queues}.fifo`;
    return {
      name,
      ...fauxqs.createQueue(name, { attributes: { FifoQueue: 'true', VisibilityTimeout: '1' } }),
    };
  }

  async function sendTo(queueUrl: string, messages: Array<{ id: string; group: string }>): Promise<void> {
    const { Failed } = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: messages.map(({ id, group }) => ({
          Id: id,
          MessageBody: JSON.stringify({ id }),
          MessageGroupId: group,
          MessageDeduplicationId: `dedup-${id}`,
          MessageAttributes: { kind: { DataType: 'String', StringValue: 'turn' } },
        })),
      }),
    );
    expect(Failed ?? []).toEqual([]);
  }

  const bodyId = (record: SQSRecord) => (JSON.parse(record.body) as { id: string }).id;

  function messagesLeft(name: string): number {
    const queue = fauxqs.inspectQueue(name);
    if (!queue) throw new Error(`no queue ${name}`);
    return queue.messages.ready.length + queue.messages.inflight.length + queue.messages.delayed.length;
  }

  async function poll(
    queueUrl: string,
    handle: (records: SQSRecord[]) => SQSBatchResponse | undefined,
  ): Promise<{ poller: SqsPoller; seen: Recorder<SQSRecord> }> {
    const seen = new Recorder<SQSRecord>();
    const poller = await startSqsPoller({
      sqs,
      queueUrl,
      handler: async (event) => {
        const response = handle(event.Records);
        for (const record of event.Records) seen.push(record);
        return response;
      },
    });
    return { poller, seen };
  }

  it('delivers FIFO messages with their FIFO attributes and deletes them once handled', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'a', group: 'g1' },
      { id: 'b', group: 'g1' },
    ]);
    const { poller, seen } = await poll(queue.queueUrl, () => undefined);
    const b = await seen.waitFor((r) => bodyId(r) === 'b');
    await poller.stop();
    const a = seen.items.find((r) => bodyId(r) === 'a')!;
    expect(seen.items.indexOf(a)).toBeLessThan(seen.items.indexOf(b));
    expect(a.attributes).toMatchObject({
      MessageGroupId: 'g1',
      MessageDeduplicationId: 'dedup-a',
      ApproximateReceiveCount: '1',
    });
    expect(Number(b.attributes.SequenceNumber)).toBeGreaterThan(Number(a.attributes.SequenceNumber));
    expect(a).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: queue.queueArn,
      awsRegion: 'us-east-1',
    });
    expect(a.messageAttributes.kind).toEqual({
      stringValue: 'turn',
      stringListValues: [],
      binaryListValues: [],
      dataType: 'String',
    });
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('deletes the successes of a batch and redelivers a reported failure after its visibility timeout', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'fails-once', group: 'g1' },
      { id: 'fine', group: 'g2' },
    ]);
    let failed = false;
    const { poller, seen } = await poll(queue.queueUrl, (records) => {
      const target = records.find((r) => bodyId(r) === 'fails-once');
      if (!target || failed) return undefined;
      failed = true;
      return { batchItemFailures: [{ itemIdentifier: target.messageId }] };
    });
    const first = await seen.waitFor((r) => bodyId(r) === 'fails-once');
    const retry = await seen.waitFor((r) => bodyId(r) === 'fails-once' && r !== first);
    await poller.stop();
    expect(retry.attributes.ApproximateReceiveCount).toBe('2');
    expect(Number(retry.attributes.ApproximateFirstReceiveTimestamp)).toBe(
      Number(first.attributes.ApproximateFirstReceiveTimestamp),
    );
    expect(seen.items.filter((r) => bodyId(r) === 'fine')).toHaveLength(1);
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('retries the whole batch when the handler throws', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'x', group: 'g1' },
      { id: 'y', group: 'g2' },
    ]);
    let calls = 0;
    const { poller, seen } = await poll(queue.queueUrl, () => {
      calls += 1;
      if (calls === 1) throw new Error('worker crashed');
      return undefined;
    });
    await seen.waitFor((r) => bodyId(r) === 'x' && r.attributes.ApproximateReceiveCount === '2');
    await seen.waitFor((r) => bodyId(r) === 'y' && r.attributes.ApproximateReceiveCount === '2');
    await poller.stop();
    expect(messagesLeft(queue.name)).toBe(0);
  });
});

// fauxqs 1.9.2 hands out one message per FIFO group per receive (SQS may hand out several), so a
// batch holding two messages of one group cannot come from it: the rule is checked on built records.
describe('which records the poller deletes after a batch', () => {
  const record = (messageId: string, group?: string): SQSRecord => ({
    messageId,
    receiptHandle: `rh-${messageId}`,
    body: '',
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: '0',
      ...(group ? { MessageGroupId: group } : {}),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:q',
    awsRegion: 'us-east-1',
  });
  const ids = (records: SQSRecord[]) => records.map((r) => r.messageId);

  it('keeps the later messages of a failed FIFO group but deletes other groups', () => {
    const batch = [record('a1', 'a'), record('b1', 'b'), record('a2', 'a'), record('b2', 'b')];
    const response = { batchItemFailures: [{ itemIdentifier: 'a1' }] };
    expect(ids(recordsToDelete(batch, response, true))).toEqual(['b1', 'b2']);
  });

  it('keeps only the reported failures on a standard queue', () => {
    const batch = [record('m1'), record('m2'), record('m3')];
    expect(ids(recordsToDelete(batch, { batchItemFailures: [{ itemIdentifier: 'm1' }] }, false))).toEqual([
      'm2',
      'm3',
    ]);
  });

  it('keeps the whole batch when a failure names a message that is not in it', () => {
    const batch = [record('m1'), record('m2')];
    expect(recordsToDelete(batch, { batchItemFailures: [{ itemIdentifier: 'other' }] }, false)).toEqual([]);
  });
});
