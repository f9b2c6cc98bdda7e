import type { Command } from 'commander';
import {
  cancelRuns,
  describeEvent,
  eraseOwner,
  eraseTenant,
  expireRuns,
  inspectSession,
  listDeadLetters,
  redriveDeadLetters,
  resumeTenant,
  suspendTenant,
  tailSession,
  tenantStatus,
} from '../lib/operate/index.ts';
import { type CliIo, connect, print, refOf, type TargetOptions, usageError, withTarget } from './io.ts';

type SessionOptions = TargetOptions & { user?: string; tenant?: string };

/** An operator command's action: runs against its target and says whether it succeeded. */
type Action<A extends unknown[], O> = (io: CliIo, ...args: [...A, O]) => Promise<boolean>;

/** Wraps an action so that its exit code is recorded (0 when it succeeded, 1 when it did not). */
function run<A extends unknown[], O>(io: CliIo, exit: (code: number) => void, action: Action<A, O>) {
  return async (...args: [...A, O, Command]) => {
    const ok = await action(io, ...(args.slice(0, -1) as [...A, O]));
    exit(ok ? 0 : 1);
  };
}

const sessionOptions = (command: Command) =>
  withTarget(command)
    .option('--user <id>', "the session's owner, when <session> is the host's own id rather than its ref")
    .option('--tenant <id>', "the owner's tenant, with --user");

const n = (list: unknown[], one: string, many = `${one}s`) =>
  `${list.length} ${list.length === 1 ? one : many}`;

/** Registers inspect, tail, cancel, dlq, tenant and erase on the program. */
export function addOperateCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  sessionOptions(
    program
      .command('inspect')
      .description('show a session: its owner, its runs, its pending actions and the end of its event log')
      .argument('<session>', "the session's ref (as logs and `ref` show it), or its host id with --user"),
  ).action(
    run(io, exit, async (out, session: string, options: SessionOptions) => {
      const target = await connect(options);
      const report = await inspectSession(target.rt, refOf(session, options));
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
        await tailSession(target.rt, refOf(session, options), {
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
      const ref = refOf(session, options);
      const runs = options.expire ? await expireRuns(target.rt, ref) : await cancelRuns(target.rt, ref);
      print(out, options, { session: ref, runs }, (r) =>
        r.runs.map((x) => `${x.runId} ${x.outcome}: ${x.detail}`).join('\n'),
      );
      return runs.every((r) => r.outcome !== 'held');
    }),
  );

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
      return true;
    }),
  );

  const tenant = program.command('tenant').description("suspend or resume a tenant's use of the runtime");
  withTarget(
    tenant
      .command('suspend')
      .description("refuse the tenant's new messages (403 tenant_suspended) and stop its running turns")
      .argument('<tenant>', 'the tenant id, as the authoriser names it')
      .option('--reason <text>', 'why, kept with the suspension'),
  ).action(
    run(io, exit, async (out, id: string, options: TargetOptions & { reason?: string }) => {
      const target = await connect(options);
      const result = await suspendTenant(target.rt, id, options.reason);
      print(out, options, result, (r) =>
        [
          `Tenant ${r.tenant} is suspended since ${r.suspendedAt}.`,
          ...r.stopped.map((s) => `  stopping ${s.runIds.join(', ')} of ${s.sessionId}`),
        ].join('\n'),
      );
      return true;
    }),
  );
  withTarget(
    tenant
      .command('resume')
      .description("take the tenant's messages again")
      .argument('<tenant>', 'the tenant id'),
  ).action(
    run(io, exit, async (out, id: string, options: TargetOptions) => {
      const target = await connect(options);
      const resumed = await resumeTenant(target.rt, id);
      print(out, options, { tenant: id, resumed }, (r) =>
        r.resumed ? `Tenant ${id} is resumed.` : `Tenant ${id} was not suspended.`,
      );
      return true;
    }),
  );
  withTarget(
    tenant
      .command('status')
      .description('whether the tenant is suspended')
      .argument('<tenant>', 'the tenant id'),
  ).action(
    run(io, exit, async (out, id: string, options: TargetOptions) => {
      const target = await connect(options);
      const suspension = await tenantStatus(target.rt, id);
      print(out, options, { tenant: id, suspended: suspension !== undefined, ...suspension }, () =>
        suspension
          ? `Tenant ${id} is suspended since ${suspension.suspendedAt}${suspension.reason ? `: ${suspension.reason}` : ''}.`
          : `Tenant ${id} is not suspended.`,
      );
      return true;
    }),
  );

  withTarget(
    program
      .command('erase')
      .description(
        'delete everything of a user (--user, within --tenant) or of a whole tenant (--tenant --all-users): sessions, messages, events, files',
      )
      .option('--user <id>', 'the user whose data goes')
      .option('--tenant <id>', "the user's tenant; alone with --all-users, the whole tenant")
      .option('--all-users', 'with --tenant and no --user: every user of the tenant')
      .option('--dry-run', 'only list what would be deleted')
      .option('--yes', 'delete: nothing is deleted without it'),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        options: TargetOptions & {
          user?: string;
          tenant?: string;
          allUsers?: boolean;
          dryRun?: boolean;
          yes?: boolean;
        },
      ) => {
        if (options.user === undefined && !(options.tenant !== undefined && options.allUsers))
          throw usageError('Name whose data goes: --user ID [--tenant ID], or --tenant ID --all-users.');
        if (options.user !== undefined && options.allUsers)
          throw usageError('--all-users is not for one --user.');
        if (!options.dryRun && !options.yes)
          throw usageError('erase deletes for good: add --yes, or --dry-run to see what it would delete.');
        const target = await connect(options);
        const dryRun = options.dryRun ?? false;
        const erased =
          options.user === undefined
            ? await eraseTenant(target.rt, options.tenant as string, { dryRun })
            : await eraseOwner(
                target.rt,
                { owner: options.user, ...(options.tenant !== undefined && { tenant: options.tenant }) },
                { dryRun },
              );
        print(out, options, erased, (e) =>
          [
            `${e.dryRun ? 'Would delete' : 'Deleted'} the data of ${n(e.owners, 'owner')}: ${n(e.sessions, 'session')}, ${n(e.files, 'file')}, ${e.items} other items.`,
            ...(e.dryRun || e.sessions.length === 0
              ? []
              : [
                  'Each session answers 404 now; the worker removes its items (messages, events, runs) in a queued run.',
                ]),
          ].join('\n'),
        );
        return true;
      },
    ),
  );
}

function positive(name: string, value: string): number {
  const number = Number(value);
  if (!(Number.isInteger(number) && number > 0))
    throw usageError(`${name} takes a positive whole number (got "${value}").`);
  return number;
}
