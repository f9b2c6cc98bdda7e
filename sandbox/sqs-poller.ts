import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { asInvocation, createLambdaContext, untraced } from './lambda-context.ts';
import { recordsToDelete, toSqsRecord } from './sqs-records.ts';
import { withTimeout } from './timeout.ts';

export { recordsToDelete, toSqsRecord } from './sqs-records.ts';

/** How the event source calls the function: the stack's worker props, with the same defaults. */
export interface EventSourceOptions {
  /** Records per invocation, 1 to 10 (`workerBatchSize`). Default 10. */
  batchSize?: number;
  /** Invocations at once, at most (`workerMaxConcurrency`). Default 1000, the account's usual limit. */
  maxConcurrency?: number;
  /** The function's timeout (`workerTimeout`), after which an invocation is abandoned. Default 300 000. */
  timeoutMs?: number;
}

/** Options of {@link startSqsPoller}. */
export interface SqsPollerOptions extends EventSourceOptions {
  /** A client with an explicit `endpoint` and `useQueueUrlAsEndpoint: false`. */
  sqs: SQSClient;
  queueUrl: string;
  /** Default: read from the queue with GetQueueAttributes. */
  queueArn?: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler declared `Promise<void>` must fit.
  handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined | void>;
  /** Long-poll wait. Default 1. `stop()` ends a poll in flight rather than wait for it. */
  waitTimeSeconds?: number;
  /** Default 'worker'. */
  functionName?: string;
  /**
   * Called when an invocation reaches its timeout. Lambda ends the invocation there; in one process
   * the handler cannot be killed, so this is where it is told to stop (or the process ends itself).
   */
  onTimeout?: (context: Context) => void;
  /** The clock an invocation's time left counts down by (the functions' clock). Default `Date.now`. */
  clock?: () => number;
}

/** A running poller. */
export interface SqsPoller {
  /** Stops polling and waits for the invocations in flight (and those abandoned at their timeout). */
  stop(): Promise<void>;
}

type Outcome = { response: SQSBatchResponse | undefined } | { error: unknown } | { timedOut: true };

function validate(options: SqsPollerOptions): void {
  const { batchSize = 10, waitTimeSeconds = 1, maxConcurrency = 1000, timeoutMs = 300_000 } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10)
    throw new Error('batchSize must be 1 to 10');
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 0 || waitTimeSeconds > 20)
    throw new Error('waitTimeSeconds must be 0 to 20');
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1)
    throw new Error('maxConcurrency must be a positive integer');
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new Error('timeoutMs must be a positive integer');
}

async function resolveQueueArn(options: SqsPollerOptions): Promise<string> {
  if (options.queueArn) return options.queueArn;
  const { Attributes } = await options.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: options.queueUrl, AttributeNames: ['QueueArn'] }),
  );
  if (!Attributes?.QueueArn) throw new Error(`No QueueArn for ${options.queueUrl}`);
  return Attributes.QueueArn;
}

/**
 * Feeds an SQS queue to a Lambda handler like the SQS event source with `ReportBatchItemFailures`:
 * each receive (up to `batchSize` messages, several of one FIFO group among them) is one invocation;
 * invocations run side by side up to `maxConcurrency`, so concurrency rises with the groups that have
 * work; every record the handler does not report is deleted; a handler that throws or runs past
 * `timeoutMs` fails its whole batch, which comes back after the queue's visibility timeout.
 *
 * @example
 * const poller = await startSqsPoller({ sqs, queueUrl, handler: worker.handler });
 * await poller.stop();
 */
export async function startSqsPoller(options: SqsPollerOptions): Promise<SqsPoller> {
  validate(options);
  const { sqs, queueUrl, handler } = options;
  const { batchSize = 10, maxConcurrency = 1000, timeoutMs = 300_000 } = options;
  const queueArn = await resolveQueueArn(options);
  const region = queueArn.split(':')[3];
  const invocations = new Set<Promise<void>>();
  const abandoned = new Set<Promise<unknown>>();
  let running = true;
  // Ends the receive in flight (and a pause after a failed one) when the poller stops, so that stop()
  // does not wait out a long poll that can no longer start an invocation.
  const stopping = new AbortController();

  async function invoke(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toSqsRecord(message, queueArn));
    const context = createLambdaContext({
      functionName: options.functionName ?? 'worker',
      timeoutMs,
      ...(region ? { region } : {}),
      ...(options.clock && { clock: options.clock }),
    });
    const work = Promise.resolve()
      .then(() => asInvocation(() => handler({ Records: records }, context)))
      .then(
        (response): Outcome => ({ response: response ?? undefined }),
        (error: unknown) => ({ error }),
      );
    // The handler's outcome, or `timedOut` once the function's timeout has passed.
    const outcome: Outcome = await withTimeout(work, timeoutMs, { timedOut: true } as const);
    if ('timedOut' in outcome) {
      console.error(`[sqs-poller] ${context.awsRequestId} Task timed out after ${timeoutMs / 1000} seconds`);
      abandoned.add(work);
      void work.finally(() => abandoned.delete(work));
      options.onTimeout?.(context);
      return;
    }
    if ('error' in outcome) {
      console.error('[sqs-poller] batch failed, every message will be retried:', outcome.error);
      return;
    }
    const done = recordsToDelete(records, outcome.response);
    if (done.length === 0) return;
    const { Failed } = await untraced(() =>
      sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((record, i) => ({ Id: String(i), ReceiptHandle: record.receiptHandle })),
        }),
      ),
    );
    if (Failed?.length) console.error('[sqs-poller] could not delete:', Failed);
  }

  async function poll(): Promise<void> {
    while (running) {
      if (invocations.size >= maxConcurrency) {
        await Promise.race(invocations);
        continue;
      }
      try {
        const { Messages } = await untraced(() =>
          sqs.send(
            new ReceiveMessageCommand({
              QueueUrl: queueUrl,
              MaxNumberOfMessages: batchSize,
              WaitTimeSeconds: options.waitTimeSeconds ?? 1,
              MessageSystemAttributeNames: ['All'],
              MessageAttributeNames: ['All'],
            }),
            { abortSignal: stopping.signal },
          ),
        );
        // Received after stop(): leave them to come back after their visibility timeout, as a
        // Lambda event source being shut down would, rather than start turns nobody will stop.
        if (!Messages?.length || !running) continue;
        const invocation = invoke(Messages)
          .catch((error: unknown) => console.error('[sqs-poller] could not finish a batch:', error))
          .finally(() => invocations.delete(invocation));
        invocations.add(invocation);
      } catch (error) {
        if (!running) return;
        console.error('[sqs-poller] poll failed:', error);
        // Without a pause a queue that is down turns this loop into a busy spin.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          stopping.signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              resolve();
            },
            { once: true },
          );
        });
      }
    }
  }

  const loop = poll();
  return {
    async stop() {
      running = false;
      stopping.abort();
      await loop;
      await Promise.all(invocations);
      await Promise.allSettled(abandoned);
    },
  };
}
