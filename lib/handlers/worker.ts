import middy from '@middy/core';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { newId } from '../ids/index.ts';
import { RetryLaterError, runTurn, stopAllRuns, TurnJobSchema } from '../runs/index.ts';
import { lazyRuntime } from './runtime.ts';

/** Records of one FIFO message group, in order: they must run one after another. */
function byGroup(records: SQSRecord[]): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  return [...groups.values()];
}

async function processRecord(
  rt: Runtime,
  app: Switchboard,
  record: SQSRecord,
  workerId: string,
): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const job = TurnJobSchema.safeParse(body);
  if (!job.success) {
    // A job no version of the API writes: retrying cannot help, so it is dropped, loudly.
    rt.logger.error('Dropped an unreadable job', { messageId: record.messageId });
    return;
  }
  await runTurn(rt, app, job.data, workerId);
}

/**
 * The turn worker's Lambda handler for the SQS event source. Message groups (sessions) run side
 * by side, each group's records in order; a record that fails is reported in batchItemFailures
 * together with the records behind it in its group, so the queue keeps the session's order.
 */
export function createWorkerHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime(runtime);
  return middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event, context) => {
    const workerId = `${context.awsRequestId || newId('worker')}`;
    const failures: string[] = [];
    // Before Lambda's timeout ends the invocation, stop the turns (reason shutdown) so they close cleanly.
    const remaining = context.getRemainingTimeInMillis?.() ?? 0;
    const margin = rt().settings.runs.cancelGraceMs + 5_000;
    const shutdown =
      remaining > margin ? setTimeout(() => stopAllRuns('shutdown', rt()), remaining - margin) : undefined;
    await Promise.all(
      byGroup(event.Records).map(async (records) => {
        for (const [index, record] of records.entries()) {
          try {
            await processRecord(rt(), app, record, workerId);
          } catch (error) {
            if (!(error instanceof RetryLaterError)) {
              rt().logger.error('A turn failed; the job will be retried', { error: String(error) });
            }
            failures.push(...records.slice(index).map((r) => r.messageId));
            return;
          }
        }
      }),
    );
    clearTimeout(shutdown);
    return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
  });
}
