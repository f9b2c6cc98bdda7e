import type { Command } from 'commander';
import {
  type DeletedDeadLetter,
  deleteDeadLetters,
  listDeadLetters,
  redriveDeadLetters,
} from '../lib/operate/index.ts';
import { positive, run } from './command.ts';
import { type CliIo, connect, print, type TargetOptions, withTarget } from './io.ts';

/** Registers `dlq list`, `dlq redrive`, `dlq delete` and `dlq purge`: the turns queue's dead letters. */
export function addDlqCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  const dlq = program.command('dlq').description("the turns queue's dead-letter queue");
  withTarget(
    dlq
      .command('list')
      .description('list the dead letters: each job, and where its run stands now')
      .option('--max <n>', 'at most this many', '100'),
  ).action(
    run(io, exit, async (out, options: TargetOptions & { max: string }) => {
      const target = await connect(options);
      const letters = await listDeadLetters(target, positive('--max', options.max));
      print(out, options, letters, (list) =>
        list.length === 0
          ? `The dead-letter queue of ${target.label} is empty.`
          : list
              .map((l) =>
                l.job
                  ? `${l.messageId} ${l.job.kind} session ${l.job.sessionId} run ${l.job.runId}: ${l.run ? `run ${l.run.status}` : 'run gone'}${l.receiveCount ? `, received ${l.receiveCount} times` : ''}`
                  : `${l.messageId} unreadable: ${l.unreadable}`,
              )
              .join('\n'),
      );
      return true;
    }),
  );
  withTarget(
    dlq
      .command('redrive')
      .description(
        'send dead letters back to the turns queue with a new deduplication id; one whose run has ended is acknowledged without running',
      )
      .argument('[messageIds...]', 'only these dead letters (default: all)')
      .option('--max <n>', 'at most this many', '100'),
  ).action(
    run(io, exit, async (out, messageIds: string[], options: TargetOptions & { max: string }) => {
      const target = await connect(options);
      const results = await redriveDeadLetters(target, {
        max: positive('--max', options.max),
        ...(messageIds.length > 0 && { only: messageIds }),
      });
      print(out, options, results, (list) =>
        list.length === 0
          ? 'Nothing to redrive.'
          : list.map((r) => `${r.messageId} ${r.outcome}: ${r.detail}`).join('\n'),
      );
      // A dead letter asked for by id and not found (gone, or not among the first --max) is a failure.
      const missing = messageIds.filter((id) => !results.some((r) => r.messageId === id));
      if (missing.length > 0) out.stderr.write(`not in the dead-letter queue: ${missing.join(', ')}\n`);
      return missing.length === 0;
    }),
  );
  const deletedText = (list: DeletedDeadLetter[]) =>
    list.length === 0
      ? 'Nothing deleted.'
      : list
          .map((d) =>
            d.runId
              ? `${d.messageId} deleted: session ${d.sessionId} run ${d.runId}`
              : `${d.messageId} deleted: ${d.unreadable}`,
          )
          .join('\n');
  withTarget(
    dlq
      .command('delete')
      .description('delete these dead letters for good (a poison message redrive skips, or a job not to run)')
      .argument('<messageIds...>', 'the dead letters to delete (dlq list shows their ids)')
      .option('--max <n>', 'look among at most this many', '100'),
  ).action(
    run(io, exit, async (out, messageIds: string[], options: TargetOptions & { max: string }) => {
      const target = await connect(options);
      const deleted = await deleteDeadLetters(target, {
        only: messageIds,
        max: positive('--max', options.max),
      });
      print(out, options, deleted, deletedText);
      const missing = messageIds.filter((id) => !deleted.some((d) => d.messageId === id));
      if (missing.length > 0) out.stderr.write(`not in the dead-letter queue: ${missing.join(', ')}\n`);
      return missing.length === 0;
    }),
  );
  withTarget(
    dlq
      .command('purge')
      .description('delete every dead letter for good; needs --yes')
      .option('--yes', 'yes, delete them all')
      .option('--max <n>', 'at most this many', '1000'),
  ).action(
    run(io, exit, async (out, options: TargetOptions & { max: string; yes?: boolean }) => {
      if (!options.yes) {
        out.stderr.write('dlq purge deletes every dead letter for good: say --yes to mean it.\n');
        return false;
      }
      const target = await connect(options);
      const deleted = await deleteDeadLetters(target, { max: positive('--max', options.max) });
      print(out, options, deleted, deletedText);
      return true;
    }),
  );
}
