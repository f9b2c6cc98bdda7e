import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installFifoBatches } from '../../sandbox/fauxqs-fifo.ts';
import {
  recordsToDelete,
  type SqsPoller,
  type SqsPollerOptions,
  startSqsPoller,
} from '../../sandbox/sqs-poller.ts';
import { gate } from '../support/agents.ts';
import { Recorder } from './helpers.ts';

describe('SQS poller', () => {
  let fauxqs: FauxqsServer;
  let sqs: SQSClient;
  let queues = 0;
  const pollers: SqsPoller[] = [];

  const fauxqsClient = () =>
    new SQSClient({
      endpoint: fauxqs.address,
      useQueueUrlAsEndpoint: false,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });

  beforeAll(async () => {
    await installFifoBatches();
    fauxqs = await startFauxqs({ port: 0, logger: false });
    sqs = fauxqsClient();
  });
  afterAll(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
    sqs.destroy();
    await fauxqs.stop();
  });

  /**
   * A fresh FIFO queue, by default with a 1 s visibility timeout so that retries come back quickly;
   * a test that holds messages in flight gives it a long one, so that none comes back meanwhile.
   */
  function fifoQueue(visibilityTimeout = '1') {
    queues += 1;
    const name = `turns-${queues}.fifo`;
    return {
      name,
      ...fauxqs.createQueue(name, {
        attributes: { FifoQueue: 'true', VisibilityTimeout: visibilityTimeout },
      }),
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
  const ids = (event: SQSEvent) => event.Records.map(bodyId);

  function messagesLeft(name: string): number {
    const queue = fauxqs.inspectQueue(name);
    if (!queue) throw new Error(`no queue ${name}`);
    return queue.messages.ready.length + queue.messages.inflight.length + queue.messages.delayed.length;
  }

  /** A poller whose handler answers with `handle`; every batch and every record it got are recorded. */
  async function poll(
    queueUrl: string,
    handle: (records: SQSRecord[], context: Context) => Promise<SQSBatchResponse | undefined> | undefined,
    options: Partial<SqsPollerOptions> = {},
  ): Promise<{ poller: SqsPoller; seen: Recorder<SQSRecord>; batches: Recorder<SQSEvent> }> {
    const seen = new Recorder<SQSRecord>();
    const batches = new Recorder<SQSEvent>();
    const poller = await startSqsPoller({
      sqs,
      queueUrl,
      handler: async (event, context) => {
        batches.push(event);
        for (const record of event.Records) seen.push(record);
        return handle(event.Records, context);
      },
      ...options,
    });
    pollers.push(poller);
    return { poller, seen, batches };
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

  it('hands several messages of one group to one invocation, in order, up to the batch size', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'a1', group: 'a' },
      { id: 'a2', group: 'a' },
      { id: 'b1', group: 'b' },
      { id: 'a3', group: 'a' },
      { id: 'a4', group: 'a' },
    ]);
    const { poller, seen, batches } = await poll(queue.queueUrl, () => undefined, { batchSize: 3 });
    await seen.waitFor((r) => bodyId(r) === 'a4', 'the last message');
    await seen.waitFor((r) => bodyId(r) === 'b1', 'the other group');
    await poller.stop();
    // The first receive takes group a as far as the batch allows; the rest of a comes in order after.
    expect(ids(batches.items[0]!)).toEqual(['a1', 'a2', 'a3']);
    expect(batches.items.flatMap(ids).filter((id) => id.startsWith('a'))).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(batches.items.every((batch) => batch.Records.length <= 3)).toBe(true);
    expect(seen.items).toHaveLength(5);
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('runs invocations side by side as groups have work, never more than maxConcurrency', async () => {
    // In flight for longer than the test holds them: the two left ready are the ones never received.
    const queue = fifoQueue('30');
    const groups = ['g1', 'g2', 'g3', 'g4', 'g5'];
    await sendTo(
      queue.queueUrl,
      groups.map((group) => ({ id: `${group}-m`, group })),
    );
    const release = gate();
    let active = 0;
    let most = 0;
    // The poller's own client, counting its receives in flight: that none is, once three run, shows the
    // poller parked until one ends, without waiting to see that nothing happens.
    const client = fauxqsClient();
    let receiving = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const receive = context.commandName === 'ReceiveMessageCommand';
        if (receive) receiving += 1;
        try {
          return await next(args);
        } finally {
          if (receive) receiving -= 1;
        }
      },
      { step: 'initialize' },
    );
    const { poller, batches, seen } = await poll(
      queue.queueUrl,
      async () => {
        active += 1;
        most = Math.max(most, active);
        await release.opened;
        active -= 1;
        return undefined;
      },
      { batchSize: 1, maxConcurrency: 3, sqs: client },
    );
    try {
      await batches.waitFor(() => batches.items.length === 3, 'three invocations at once');
      // Held at the maximum: the poller receives nothing more while three invocations run. It adds
      // the third before its handler runs and then waits for one to end, so no receive is in flight.
      await new Promise((resolve) => setImmediate(resolve));
      expect(receiving).toBe(0);
      expect(batches.items).toHaveLength(3);
      expect(fauxqs.inspectQueue(queue.name)?.messages.ready).toHaveLength(2);
    } finally {
      release.open();
    }
    await seen.waitFor(() => seen.items.length === 5, 'every group');
    await poller.stop();
    client.destroy();
    expect(most).toBe(3);
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('concurrency rises with the number of groups when the maximum allows', async () => {
    const queue = fifoQueue();
    const groups = ['g1', 'g2', 'g3', 'g4'];
    await sendTo(
      queue.queueUrl,
      groups.map((group) => ({ id: `${group}-m`, group })),
    );
    const release = gate();
    const { poller, batches } = await poll(
      queue.queueUrl,
      async () => {
        await release.opened;
        return undefined;
      },
      { batchSize: 1, maxConcurrency: 10 },
    );
    try {
      // All four are held at once: only concurrent invocations can get there.
      await batches.waitFor(() => batches.items.length === 4, 'four invocations at once');
    } finally {
      release.open();
    }
    await poller.stop();
    expect(batches.items.flatMap(ids).sort()).toEqual(['g1-m', 'g2-m', 'g3-m', 'g4-m']);
  });

  it('deletes every record the handler does not report, later records of a failed group included', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'a1', group: 'a' },
      { id: 'a2', group: 'a' },
      { id: 'b1', group: 'b' },
    ]);
    let reported = false;
    const { poller, seen, batches } = await poll(queue.queueUrl, (records) => {
      const a1 = records.find((r) => bodyId(r) === 'a1');
      if (!a1 || reported) return undefined;
      reported = true;
      // Reports a1 alone: Lambda deletes a2 with the rest; listing it was the function's job.
      return Promise.resolve({ batchItemFailures: [{ itemIdentifier: a1.messageId }] });
    });
    const retry = await seen.waitFor(
      (r) => bodyId(r) === 'a1' && r.attributes.ApproximateReceiveCount === '2',
    );
    await poller.stop();
    expect(ids(batches.items[0]!)).toEqual(['a1', 'a2', 'b1']);
    expect(batches.items.flatMap(ids).filter((id) => id === 'a2')).toEqual(['a2']);
    expect(retry.attributes.ApproximateReceiveCount).toBe('2');
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('retries the whole batch when the handler throws, its group in order', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'x1', group: 'g1' },
      { id: 'x2', group: 'g1' },
      { id: 'x3', group: 'g1' },
      { id: 'y', group: 'g2' },
    ]);
    let calls = 0;
    const { poller, batches } = await poll(queue.queueUrl, () => {
      calls += 1;
      if (calls === 1) throw new Error('worker crashed');
      return undefined;
    });
    const again = (event: SQSEvent) =>
      event.Records.some((r) => r.attributes.ApproximateReceiveCount === '2');
    await batches.waitFor(() => batches.items.filter(again).flatMap(ids).length === 4, 'the batch again');
    await poller.stop();
    expect(ids(batches.items[0]!)).toEqual(['x1', 'x2', 'x3', 'y']);
    // The three messages of g1 came back together and in their order.
    expect(
      batches.items
        .filter(again)
        .flatMap(ids)
        .filter((id) => id.startsWith('x')),
    ).toEqual(['x1', 'x2', 'x3']);
    expect(messagesLeft(queue.name)).toBe(0);
  });

  it('abandons an invocation at its timeout: the batch fails, onTimeout is told, the messages come back', async () => {
    const queue = fifoQueue();
    await sendTo(queue.queueUrl, [
      { id: 'slow', group: 'g1' },
      { id: 'next', group: 'g1' },
    ]);
    const release = gate();
    const timedOut = new Recorder<Context>();
    let calls = 0;
    const { poller, seen, batches } = await poll(
      queue.queueUrl,
      async () => {
        calls += 1;
        if (calls === 1) await release.opened;
        return undefined;
      },
      { timeoutMs: 300, onTimeout: (context) => timedOut.push(context) },
    );
    let context: Context;
    try {
      context = await timedOut.waitFor(() => true, 'the timeout');
      await seen.waitFor(
        (r) => bodyId(r) === 'next' && r.attributes.ApproximateReceiveCount === '2',
        'the retry',
      );
    } finally {
      release.open();
    }
    await poller.stop();
    expect(timedOut.items).toHaveLength(1);
    expect(context.getRemainingTimeInMillis()).toBe(0);
    expect(batches.items.map(ids)).toEqual([
      ['slow', 'next'],
      ['slow', 'next'],
    ]);
    expect(messagesLeft(queue.name)).toBe(0);
  });
});

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
  const batch = [record('a1', 'a'), record('b1', 'b'), record('a2', 'a'), record('b2', 'b')];

  it('deletes all but the reported records, on a FIFO queue too', () => {
    expect(ids(recordsToDelete(batch, { batchItemFailures: [{ itemIdentifier: 'a1' }] }))).toEqual([
      'b1',
      'a2',
      'b2',
    ]);
    const both = { batchItemFailures: [{ itemIdentifier: 'a1' }, { itemIdentifier: 'a2' }] };
    expect(ids(recordsToDelete(batch, both))).toEqual(['b1', 'b2']);
  });

  it('deletes everything after a response without failures', () => {
    expect(ids(recordsToDelete(batch, undefined))).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(ids(recordsToDelete(batch, { batchItemFailures: [] }))).toEqual(['a1', 'b1', 'a2', 'b2']);
  });

  it('keeps the whole batch when a failure is not an id of the batch', () => {
    for (const itemIdentifier of ['other', '', null]) {
      const response = { batchItemFailures: [{ itemIdentifier }] } as unknown as SQSBatchResponse;
      expect(recordsToDelete(batch, response)).toEqual([]);
    }
  });
});
