import type { Command } from 'commander';
import { cancelRuns, describeEvent, expireRuns, inspectSession, tailSession } from '../lib/operate/index.ts';
import { run, type SessionOptions, sessionOptions } from './command.ts';
import { type CliIo, connect, print, refOf, usageError } from './io.ts';

/** Registers `inspect`, `tail` and `cancel`: one session at a time. */
export function addSessionCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  sessionOptions(
    program
      .command('inspect')
      .description('show a session: its owner, its runs, its pending actions and the end of its event log')
      .argument('<session>', "the session's ref (as logs and `ref` show it), or its host id with --user"),
  ).action(
    run(io, exit, async (out, session: string, options: SessionOptions) => {
      const target = await connect(options);
      const report = await inspectSession(target.rt, await refOf(target, session, options));
      print(out, options, report, (r) =>
        [
          `session ${r.ref}`,
          `  host id ${r.hostId}, owner ${r.owner}${r.tenant ? ` (tenant ${r.tenant})` : ''}, agent ${r.agentId}`,
          `  created ${r.createdAt}${r.deletedAt ? `, deleted ${r.deletedAt}` : ''}, last seq ${r.lastSeq}${r.spentUsd !== undefined ? `, spent $${r.spentUsd}` : ''}`,
          `runs (${r.runs.length}):`,
          ...r.runs.map(
            (run) =>
              `  ${run.runId} ${run.kind} ${run.status}${run.stopReason ? ` (${run.stopReason})` : ''}${run.cancelRequested ? ` cancel requested: ${run.cancelRequested}` : ''}${run.leaseExpiresAt !== undefined && run.status === 'running' ? ` lease ${run.leaseOwner} until ${new Date(run.leaseExpiresAt).toISOString()}` : ''}`,
          ),
          `actions (${r.actions.length}):`,
          ...r.actions.map(
            (a) =>
              `  ${a.actionId} ${a.kind} ${a.status} (run ${a.runId}, expires ${new Date(a.expiresAt).toISOString()})`,
          ),
        ].join('\n'),
      );
      return true;
    }),
  );

  sessionOptions(
    program
      .command('tail')
      .description("follow a session's events live, from its event log (Ctrl+C stops)")
      .argument('<session>', "the session's ref, or its host id with --user")
      .option('--after <seq>', 'start after this seq (0: the whole log; default: only new events)')
      .option('--until-turn-ends', 'stop once a turn has ended (idle or waiting on an action)')
      .option('--poll-ms <ms>', 'how often the log is read', '500'),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        session: string,
        options: SessionOptions & { after?: string; untilTurnEnds?: boolean; pollMs: string },
      ) => {
        const after = options.after === undefined ? undefined : Number(options.after);
        if (after !== undefined && !(Number.isInteger(after) && after >= 0))
          throw usageError(`--after takes a seq, a whole number (got "${options.after}").`);
        const pollMs = Number(options.pollMs);
        if (!(Number.isInteger(pollMs) && pollMs >= 50))
          throw usageError(`--poll-ms takes at least 50 (got "${options.pollMs}").`);
        const target = await connect(options);
        await tailSession(target.rt, await refOf(target, session, options), {
          ...(after !== undefined && { after }),
          pollMs,
          untilTurnEnds: options.untilTurnEnds ?? false,
          ...(out.signal && { signal: out.signal }),
          onEvent: (event) =>
            out.stdout.write(`${options.json ? JSON.stringify(event) : describeEvent(event)}\n`),
        });
        return true;
      },
    ),
  );

  sessionOptions(
    program
      .command('cancel')
      .description(
        "stop a session's running or queued turn; --expire closes a stuck one whose worker is gone",
      )
      .argument('<session>', "the session's ref, or its host id with --user")
      .option(
        '--expire',
        'close the runs no worker will finish: a queued run as error (job_lost), a running one whose lease ran out as incomplete (worker_lost)',
      ),
  ).action(
    run(io, exit, async (out, session: string, options: SessionOptions & { expire?: boolean }) => {
      const target = await connect(options);
      const ref = await refOf(target, session, options);
      const runs = options.expire
        ? await expireRuns(target.rt, ref, target.rt.clock())
        : await cancelRuns(target.rt, ref);
      print(out, options, { session: ref, runs }, (r) =>
        r.runs.map((x) => `${x.runId} ${x.outcome}: ${x.detail}`).join('\n'),
      );
      return runs.every((r) => r.outcome !== 'held');
    }),
  );
}
