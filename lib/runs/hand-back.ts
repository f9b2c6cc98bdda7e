import type { Runtime } from '../config/index.ts';

/** A record the worker lists in batchItemFailures, and how soon it should come back. */
export interface HandBack {
  messageId: string;
  receiptHandle: string;
  /** Seconds until the queue hands it out again (its new visibility timeout). */
  delaySeconds: number;
}

/** The longest a failed record backs off for. */
const MAX_BACKOFF_SECONDS = 60;

/**
 * How long a record the worker hands back waits before it comes back. Untried (no time was left, or
 * a record before it in its session failed): 0 s, as it did not fail, and its FIFO group stays locked
 * until the records before it are deleted or come back. Failed: 1 s after its first receive, doubling
 * with each receive (`ApproximateReceiveCount`), at most a minute; and at least until `notBeforeMs`
 * (a live lease held by another worker ends then, and only then can this one take the run over).
 */
export function retryDelaySeconds(receiveCount: number, failed: boolean, notBeforeMs = 0): number {
  if (!failed) return 0;
  const count = Number.isFinite(receiveCount) && receiveCount > 1 ? receiveCount : 1;
  const backoff = Math.min(MAX_BACKOFF_SECONDS, 2 ** (count - 1));
  return Math.max(backoff, Math.ceil(Math.max(0, notBeforeMs) / 1000) + 1);
}

const visibilities = new WeakMap<Runtime, number>();

/**
 * The queue's visibility timeout in seconds, read once per runtime. When it cannot be read it is
 * taken as 1 s (only untried records are then shortened) and read again next time.
 */
async function queueVisibility(rt: Runtime): Promise<number> {
  const known = visibilities.get(rt);
  if (known !== undefined) return known;
  try {
    const [sqs, { GetQueueAttributesCommand }] = await Promise.all([
      rt.sqs(),
      import('../aws/sdk/sqs/visibility.ts'),
    ]);
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: rt.queueUrl, AttributeNames: ['VisibilityTimeout'] }),
    );
    const seconds = Number(Attributes?.VisibilityTimeout);
    if (!Number.isFinite(seconds)) return 1;
    visibilities.set(rt, seconds);
    return seconds;
  } catch (error) {
    rt.logger.warn('Could not read the queue visibility timeout', { error: String(error) });
    return 1;
  }
}

/**
 * Shortens the visibility of the records the worker hands back, so that they come back within
 * seconds instead of after the queue's visibility timeout (six times the worker's timeout). A hand-back
 * only ever shortens: a delay the queue's own timeout does not exceed is left to the queue. A record
 * whose change fails simply waits that timeout: it is logged, never thrown.
 */
export async function handBack(rt: Runtime, records: HandBack[]): Promise<void> {
  const visibility = await queueVisibility(rt);
  const shortened = records.filter((record) => record.delaySeconds < visibility);
  if (shortened.length === 0) return;
  const [sqs, { ChangeMessageVisibilityBatchCommand }] = await Promise.all([
    rt.sqs(),
    import('../aws/sdk/sqs/visibility.ts'),
  ]);
  for (let i = 0; i < shortened.length; i += 10) {
    const chunk = shortened.slice(i, i + 10);
    try {
      const { Failed } = await sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: rt.queueUrl,
          Entries: chunk.map((record, n) => ({
            Id: String(n),
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: record.delaySeconds,
          })),
        }),
      );
      if (Failed?.length) rt.logger.warn('Could not hand some records back early', { failed: Failed });
    } catch (error) {
      rt.logger.warn('Could not hand records back early', { error: String(error) });
    }
  }
}
