import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { Runtime } from '../config/index.ts';
import { digest } from '../ids/index.ts';
import { type TurnJob, TurnJobSchema } from '../runs/index.ts';
import { getRun } from '../store/index.ts';
import type { DeadLetter, DeletedDeadLetter, OperatorTarget, Redriven } from './types.ts';

/** How long a dead letter read by a command stays hidden from others while the command works on it. */
const HOLD_SECONDS = 60;

/** The job a dead letter holds, or why it holds none. */
function jobOf(message: Message): { job?: TurnJob; unreadable?: string } {
  let body: unknown;
  try {
    body = JSON.parse(message.Body ?? '');
  } catch {
    return { unreadable: 'the body is not JSON' };
  }
  const parsed = TurnJobSchema.safeParse(body);
  return parsed.success ? { job: parsed.data } : { unreadable: 'the body is not a turn job' };
}

/**
 * Reads up to `max` dead letters, each once, and hides them while the caller works on them. A FIFO
 * queue hands out a message group's messages in order, ten at a time at most: a session with more
 * dead letters than that shows the rest once the first ones are gone.
 */
async function receiveAll(target: OperatorTarget, max: number): Promise<Message[]> {
  const seen = new Map<string, Message>();
  while (seen.size < max) {
    const { Messages = [] } = await (await target.rt.sqs()).send(
      new ReceiveMessageCommand({
        QueueUrl: target.dlqUrl,
        MaxNumberOfMessages: Math.min(10, max - seen.size),
        VisibilityTimeout: HOLD_SECONDS,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: [
          'ApproximateReceiveCount',
          'SentTimestamp',
          'MessageDeduplicationId',
          'MessageGroupId',
        ],
      }),
    );
    const fresh = Messages.filter((m) => m.MessageId && !seen.has(m.MessageId));
    if (fresh.length === 0) break;
    for (const message of fresh) seen.set(message.MessageId as string, message);
  }
  return [...seen.values()];
}

/** Makes dead letters visible again at once (a listing only looks). */
async function release(target: OperatorTarget, messages: Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    await (await target.rt.sqs()).send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: target.dlqUrl,
        Entries: messages.slice(i, i + 10).map((m, n) => ({
          Id: String(n),
          ReceiptHandle: m.ReceiptHandle as string,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

/** A dead letter with what its job is and where its run stands now. */
async function describe(rt: Runtime, message: Message): Promise<DeadLetter> {
  const { job, unreadable } = jobOf(message);
  const attributes = message.Attributes ?? {};
  const run = job ? await getRun(rt, job.sessionId, job.runId) : undefined;
  return {
    messageId: message.MessageId as string,
    ...(attributes.ApproximateReceiveCount && { receiveCount: Number(attributes.ApproximateReceiveCount) }),
    ...(attributes.SentTimestamp && { sentAt: new Date(Number(attributes.SentTimestamp)).toISOString() }),
    ...(attributes.MessageDeduplicationId && { deduplicationId: attributes.MessageDeduplicationId }),
    ...(job && {
      job: { kind: job.kind, sessionId: job.sessionId, runId: job.runId, requestId: job.requestId },
    }),
    ...(unreadable && { unreadable }),
    ...(run && {
      run: {
        status: run.status,
        kind: run.kind ?? 'turn',
        agentId: run.agentId,
        createdAt: run.createdAt,
        ...(run.stopReason && { stopReason: run.stopReason }),
      },
    }),
  };
}

/** The dead-letter queue's jobs (at most `max`), each with its run's state; the queue is left as it was. */
export async function listDeadLetters(target: OperatorTarget, max = 100): Promise<DeadLetter[]> {
  const messages = await receiveAll(target, max);
  try {
    return await Promise.all(messages.map((m) => describe(target.rt, m)));
  } finally {
    await release(target, messages);
  }
}

/**
 * Sends dead letters back to the turns queue (all of them, or those `only` names). Following the
 * runtime's rules: a job whose run has ended (or is gone with its session) is acknowledged and
 * deleted without running anything, since a second delivery must change nothing; any other is sent
 * with a new deduplication id (the queue would drop one with the id it had, within its five-minute
 * window) and its session's group, then deleted from the dead-letter queue. The worker that receives
 * it claims a queued run as usual, and closes a started one whose lease ran out without invoking
 * the agent again. A body that is no job is left where it is.
 */
export async function redriveDeadLetters(
  target: OperatorTarget,
  options: { only?: string[]; max?: number } = {},
): Promise<Redriven[]> {
  const messages = await receiveAll(target, options.max ?? 100);
  const chosen = options.only ? messages.filter((m) => options.only?.includes(m.MessageId ?? '')) : messages;
  const results: Redriven[] = [];
  try {
    for (const message of chosen) results.push(await redriveOne(target, message));
  } finally {
    // Everything not sent on or acknowledged shows again at once: not chosen, skipped, or not reached.
    const done = new Set(results.filter((r) => r.outcome !== 'skipped').map((r) => r.messageId));
    await release(
      target,
      messages.filter((m) => !done.has(m.MessageId ?? '')),
    );
  }
  return results;
}

async function redriveOne(target: OperatorTarget, message: Message): Promise<Redriven> {
  const messageId = message.MessageId as string;
  const { job, unreadable } = jobOf(message);
  if (!job) return { messageId, outcome: 'skipped', detail: unreadable ?? 'not a job' };
  const ids = { sessionId: job.sessionId, runId: job.runId };
  const run = await getRun(target.rt, job.sessionId, job.runId);
  const sqs = await target.rt.sqs();
  const acknowledge = () =>
    sqs.send(
      new DeleteMessageCommand({ QueueUrl: target.dlqUrl, ReceiptHandle: message.ReceiptHandle as string }),
    );
  if (!run || (run.status !== 'queued' && run.status !== 'running')) {
    await acknowledge();
    const detail = run
      ? `its run already ended (${run.status})`
      : 'its run is gone (the session was deleted)';
    return { messageId, outcome: 'acknowledged', detail, ...ids };
  }
  // One id per dead letter: redriving the same one twice (a retry of this command) sends it once.
  const deduplicationId = digest('redrive', job.sessionId, job.runId, messageId);
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: target.rt.queueUrl,
      MessageBody: message.Body,
      MessageGroupId: job.sessionId,
      MessageDeduplicationId: deduplicationId,
    }),
  );
  await acknowledge();
  return {
    messageId,
    outcome: 'redriven',
    detail: `sent to the turns queue (its run is ${run.status})`,
    ...ids,
    deduplicationId,
  };
}

/**
 * Deletes dead letters for good: those `only` names, or every one read (at most `max`) when `only` is
 * not given, which is `dlq purge`. For a poison message (a body that is no job, which `redrive` skips)
 * or a job nobody wants run again; nothing is sent anywhere and no run changes. Dead letters read and
 * not deleted show again at once.
 */
export async function deleteDeadLetters(
  target: OperatorTarget,
  options: { only?: string[]; max?: number } = {},
): Promise<DeletedDeadLetter[]> {
  const messages = await receiveAll(target, options.max ?? 100);
  const chosen = options.only ? messages.filter((m) => options.only?.includes(m.MessageId ?? '')) : messages;
  const deleted: DeletedDeadLetter[] = [];
  try {
    const sqs = await target.rt.sqs();
    for (const message of chosen) {
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: target.dlqUrl, ReceiptHandle: message.ReceiptHandle as string }),
      );
      const { job, unreadable } = jobOf(message);
      deleted.push({
        messageId: message.MessageId as string,
        ...(job && { sessionId: job.sessionId, runId: job.runId }),
        ...(unreadable && { unreadable }),
      });
    }
  } finally {
    const done = new Set(deleted.map((d) => d.messageId));
    await release(
      target,
      messages.filter((m) => !done.has(m.MessageId ?? '')),
    );
  }
  return deleted;
}
