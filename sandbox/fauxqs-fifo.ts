import { randomUUID } from 'node:crypto';

/** The parts of fauxqs's (1.9.2) queue class this file relies on. */
interface FauxMessage {
  messageId: string;
  body: string;
  md5OfBody: string;
  md5OfMessageAttributes?: string;
  messageAttributes: Record<string, unknown>;
  messageGroupId?: string;
  sequenceNumber?: string;
  approximateReceiveCount: number;
  approximateFirstReceiveTimestamp?: number;
}
interface FauxQueue {
  name: string;
  attributes: Record<string, string>;
  fifoMessages: Map<string, FauxMessage[]>;
  fifoLockedGroups: Map<string, number>;
  inflightMessages: Map<string, { message: FauxMessage; receiptHandle: string; visibilityDeadline: number }>;
  spy?: { addMessage(entry: Record<string, unknown>): void };
  processTimers(): void;
  changeVisibility(receiptHandle: string, timeoutSeconds: number): void;
  dequeueFifo(
    max: number,
    visibility: number | undefined,
    dlq?: (arn: string) => FauxDlq | undefined,
  ): unknown[];
}
interface FauxDlq {
  enqueue(message: FauxMessage): void;
}

let installed: Promise<void> | undefined;

/**
 * Makes fauxqs's FIFO queues hand out messages as SQS does. SQS returns as many messages of a
 * message group as it can in one receive, in order (so a Lambda batch may hold several turns of one
 * session); fauxqs 1.9.2 stops after the first message of each group. It also puts messages whose
 * visibility ends back at the front of their group one by one, which reverses several messages of one
 * group that come back together. fauxqs has no hook for either and does not export its queue class,
 * so its module is loaded by file and the class's methods are replaced, once per process, before any
 * queue receives.
 */
export function installFifoBatches(): Promise<void> {
  installed ??= (async () => {
    const store = new URL('./sqs/sqsStore.js', import.meta.resolve('fauxqs')).href;
    const { SqsQueue } = (await import(store)) as { SqsQueue: { prototype: FauxQueue } };
    const proto = SqsQueue.prototype;
    proto.dequeueFifo = dequeueFifo;
    const { processTimers, changeVisibility } = proto;
    proto.processTimers = function (this: FauxQueue) {
      processTimers.call(this);
      restoreOrder(this);
    };
    proto.changeVisibility = function (this: FauxQueue, handle: string, seconds: number) {
      changeVisibility.call(this, handle, seconds);
      restoreOrder(this);
    };
  })();
  return installed;
}

const bySequence = (a: FauxMessage, b: FauxMessage) =>
  (a.sequenceNumber ?? '').localeCompare(b.sequenceNumber ?? '');

/** A group's messages in the order they were sent (sequence numbers are zero-padded). */
function restoreOrder(queue: FauxQueue): void {
  for (const messages of queue.fifoMessages.values()) {
    if (messages.some((m, i) => i > 0 && bySequence(messages[i - 1] as FauxMessage, m) > 0)) {
      messages.sort(bySequence);
    }
  }
}

function redrive(policy: string | undefined): { maxReceiveCount: number; dlqArn?: string } {
  try {
    const parsed = JSON.parse(policy ?? '{}') as { maxReceiveCount?: number; deadLetterTargetArn?: string };
    return { maxReceiveCount: parsed.maxReceiveCount ?? Infinity, dlqArn: parsed.deadLetterTargetArn };
  } catch {
    return { maxReceiveCount: Infinity };
  }
}

/** fauxqs's own FIFO receive, without its stop after each group's first message. */
function dequeueFifo(
  this: FauxQueue,
  maxCount: number,
  visibilityOverride: number | undefined,
  dlqResolver?: (arn: string) => FauxDlq | undefined,
): unknown[] {
  this.processTimers();
  const visibility = visibilityOverride ?? Number.parseInt(this.attributes.VisibilityTimeout ?? '30', 10);
  const { maxReceiveCount, dlqArn } = redrive(this.attributes.RedrivePolicy);
  const count = Math.min(maxCount, 10);
  const result: unknown[] = [];
  for (const [groupId, messages] of this.fifoMessages) {
    if (result.length >= count) break;
    // A group with a message in flight hands out nothing until that message is deleted or back.
    if (this.fifoLockedGroups.has(groupId)) continue;
    while (result.length < count && messages.length > 0) {
      const message = messages.shift() as FauxMessage;
      message.approximateReceiveCount += 1;
      message.approximateFirstReceiveTimestamp ||= Date.now();
      const dlq =
        dlqArn && message.approximateReceiveCount > maxReceiveCount ? dlqResolver?.(dlqArn) : undefined;
      if (dlq) {
        this.spy?.addMessage({ service: 'sqs', queueName: this.name, ...spied(message), status: 'dlq' });
        dlq.enqueue(message);
        continue;
      }
      const receiptHandle = randomUUID();
      this.inflightMessages.set(receiptHandle, {
        message,
        receiptHandle,
        visibilityDeadline: Date.now() + visibility * 1000,
      });
      this.fifoLockedGroups.set(groupId, (this.fifoLockedGroups.get(groupId) ?? 0) + 1);
      result.push({
        MessageId: message.messageId,
        ReceiptHandle: receiptHandle,
        MD5OfBody: message.md5OfBody,
        Body: message.body,
        ...(message.md5OfMessageAttributes && { MD5OfMessageAttributes: message.md5OfMessageAttributes }),
        ...(Object.keys(message.messageAttributes).length > 0 && {
          MessageAttributes: message.messageAttributes,
        }),
      });
    }
    if (messages.length === 0) this.fifoMessages.delete(groupId);
  }
  return result;
}

function spied(message: FauxMessage) {
  const { messageId, body, messageAttributes } = message;
  return { messageId, body, messageAttributes, timestamp: Date.now() };
}
