import * as z from 'zod';
import type { Runtime } from '../config/index.ts';
import { digest } from '../ids/index.ts';

/** What the API puts on the turns queue: ids only; everything else is in the table. */
export const TurnJobSchema = z.object({
  v: z.literal(1),
  kind: z.enum(['turn', 'resolve', 'continue', 'lapse', 'withdraw', 'delete']),
  sessionId: z.string(),
  runId: z.string(),
  requestId: z.string(),
  /**
   * The span this run follows from, as a W3C `traceparent`: the turn that asked the request a
   * `resolve` or `lapse` run answers, or the stopped turn a `continue` run carries on. The worker's
   * turn span links it. Absent on older jobs.
   */
  follows: z.string().max(64).optional(),
});
export type TurnJob = z.infer<typeof TurnJobSchema>;

/**
 * Queues a run on its session's FIFO group. The deduplication id is the run's, so the sweep may
 * queue a run again when its job was lost and at most one delivery claims it.
 */
export async function enqueue(rt: Runtime, job: TurnJob): Promise<void> {
  const [sqs, { SendMessageCommand }] = await Promise.all([rt.sqs(), import('../aws/sdk/sqs/send.ts')]);
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: rt.queueUrl,
      MessageBody: JSON.stringify(job),
      MessageGroupId: job.sessionId,
      MessageDeduplicationId: digest(job.sessionId, job.runId),
    }),
  );
}
