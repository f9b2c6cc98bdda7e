import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import { hostSessionId } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import { RetryLaterError } from '../errors/index.ts';
import { newId } from '../ids/index.ts';
import {
  type HandBack,
  handBack,
  retryDelaySeconds,
  runTurn,
  stopAtFor,
  TurnJobSchema,
  turnBudgetMs,
} from '../runs/index.ts';
import { invocationLink, linksTo, SpanKind, traced, withLogKeys } from '../telemetry/index.ts';
import { pipeline, schemas, telemetry } from './middleware/index.ts';
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

/** One invocation as its records see it. */
interface Invocation {
  rt: Runtime;
  app: Switchboard;
  workerId: string;
  /** Time left before Lambda ends the invocation; unbounded for a context without a clock. */
  timeLeft(): number;
}

async function processRecord(inv: Invocation, record: SQSRecord, stopAt: number | undefined): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const job = TurnJobSchema.safeParse(body);
  if (!job.success) {
    // A job no version of the API writes: retrying cannot help, so it is dropped, loudly.
    inv.rt.logger.error('Dropped an unreadable job', { messageId: record.messageId });
    return;
  }
  const { sessionId, runId, requestId, kind } = job.data;
  // One EMF document per turn: the turn's metrics are published as soon as it ends, not with the batch.
  await withLogKeys({ sessionId, runId, requestId }, () =>
    traced(
      inv.rt,
      kind,
      {
        'switchboard.session.id': hostSessionId(sessionId),
        'switchboard.run.id': runId,
        'switchboard.request.id': requestId,
        'switchboard.run.kind': kind,
        'messaging.system': 'aws_sqs',
        'messaging.message.id': record.messageId,
      },
      () => runTurn(inv.rt, inv.app, job.data, inv.workerId, stopAt === undefined ? {} : { stopAt }),
      {
        kind: SpanKind.CONSUMER,
        // The trace of the request that queued the job goes on here: its `traceparent` (a message
        // attribute) or SQS's AWSTraceHeader. The batch's own invocation is linked, and so is the turn
        // this run follows: the one that asked the request a `resolve` or `lapse` run answers (its
        // pause: one can walk from the approval to the decision), or the stopped turn a `continue`
        // run carries on.
        carrier: {
          traceparent: record.messageAttributes?.traceparent?.stringValue,
          'x-amzn-trace-id': record.attributes.AWSTraceHeader,
        },
        links: [
          ...invocationLink(),
          ...linksTo([job.data.follows], {
            'switchboard.link': kind === 'continue' ? 'stopped_turn' : 'paused_turn',
          }),
        ],
      },
    ),
  ).finally(() => inv.rt.metrics.flush());
}

/** Records handed back; `failed` when the first of them failed, with how long its run is held. */
const handedBack = (records: SQSRecord[], failed?: { retryAfterMs: number }): HandBack[] =>
  records.map((record, i) => ({
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    // Only the record that failed backs off; those behind it wait on it in their FIFO group anyway.
    delaySeconds: retryDelaySeconds(
      Number(record.attributes.ApproximateReceiveCount),
      i === 0 && failed !== undefined,
      failed?.retryAfterMs,
    ),
  }));

/**
 * Runs one session's records in order. Each record starts only with time for a turn left (the first
 * always starts: a fresh invocation is the most time any turn gets), and is stopped before the
 * invocation's timeout. What fails, and every record behind it, is handed back, as are the records
 * there is no time for, so that the session keeps its order.
 */
async function runGroup(inv: Invocation, records: SQSRecord[]): Promise<HandBack[]> {
  const { settings } = inv.rt;
  for (const [index, record] of records.entries()) {
    const left = inv.timeLeft();
    if (index > 0 && left < turnBudgetMs(settings)) return handedBack(records.slice(index));
    try {
      await processRecord(inv, record, stopAtFor(settings, left, inv.rt.clock()));
    } catch (error) {
      if (!(error instanceof RetryLaterError)) {
        inv.rt.logger.error('A turn failed; the job will be retried', { error });
      }
      return handedBack(records.slice(index), {
        retryAfterMs: error instanceof RetryLaterError ? error.retryAfterMs : 0,
      });
    }
  }
  return [];
}

/**
 * The turn worker's Lambda handler for the SQS event source (ReportBatchItemFailures). A batch may
 * hold several records of one session: sessions run side by side, each session's records in order.
 * The records that fail or that there is no time left for are listed in batchItemFailures and their
 * visibility is shortened, so they come back within seconds rather than after the queue's visibility
 * timeout. Runs are claimed before their agent is called, so a record that comes back never runs an
 * agent a second time.
 */
export function createWorkerHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('worker', runtime);
  // No early timeout from middy: an invocation that reaches its timeout is ended by Lambda, which
  // resets the environment and its turns with it; an early throw would leave them to resume on a later
  // invocation. Each turn is stopped well before the timeout instead (see stopAtFor).
  return pipeline<SQSEvent, SQSBatchResponse>(
    [telemetry(rt, undefined, () => ({ name: 'turns process', kind: SpanKind.CONSUMER })), schemas],
    async (event, context) => {
      const inv: Invocation = {
        rt: rt(),
        app,
        workerId: `${context.awsRequestId || newId('worker')}`,
        timeLeft: () => context.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY,
      };
      const groups = await Promise.all(byGroup(event.Records).map((records) => runGroup(inv, records)));
      const back = groups.flat();
      // At its timeout Lambda has ended the invocation and nothing after it happens; an invocation the
      // sandbox abandoned there does not act either, so its batch comes back as Lambda's would.
      if (back.length > 0 && inv.timeLeft() > 0) await handBack(inv.rt, back);
      return { batchItemFailures: back.map(({ messageId }) => ({ itemIdentifier: messageId })) };
    },
    { timeoutEarlyInMillis: 0 },
  );
}
