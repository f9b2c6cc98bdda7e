import type { Command } from 'commander';
import { hostSessionId, isSessionRef } from '../lib/auth/index.ts';
import {
  addBudget,
  cancelRuns,
  describeEvent,
  expireRuns,
  INSPECT_EVENTS,
  inspectSession,
  redactEvent,
  tailSession,
} from '../lib/operate/index.ts';
import type { SessionEvent } from '../lib/store/index.ts';
import { TRACES_PATH, type TurnTrace } from '../sandbox/trace-receiver.ts';
import { tracesText } from '../sandbox/trace-text.ts';
import { run, type SessionOptions, sessionOptions, withSessionHint } from './command.ts';
import { type CliIo, connect, DEFAULT_SANDBOX_URL, print, refOf, usageError } from './io.ts';
import { type AuditedOptions, audit, operatorOf, withOperator } from './tenant-commands.ts';

/** The redact option of the commands that print events. */
const REDACT_HELP =
  'mask user content (message text, tool arguments and results, answers, file names) and keep ids, types, seqs and statuses';

/** An event as printed: masked with --redact. */
const shown = (event: SessionEvent, redact: boolean | undefined) => (redact ? redactEvent(event) : event);

/** What `inspect --trace` says of a deployed stack: its traces are not in the stack's resources. */
export const TRACES_ELSEWHERE =
  "--trace reads the sandbox's own OTLP receiver. A deployed stack's traces are read in X-Ray (CloudWatch Transaction Search) or the OTLP backend the team named (docs/operations.md): look the session up there by its switchboard.session.id attribute";

/**
 * Prints a session's traces as the sandbox's receiver kept them: each turn's span tree (JSON with
 * --json). The receiver keys them by the session's host id, which a ref ends with.
 */
async function printTraces(out: CliIo, session: string, options: SessionOptions): Promise<void> {
  if (options.stack !== undefined || options.table !== undefined) throw usageError(`${TRACES_ELSEWHERE}.`);
  const hostId = options.user === undefined && isSessionRef(session) ? hostSessionId(session) : session;
  const base = (options.sandbox ?? DEFAULT_SANDBOX_URL).replace(/\/+$/, '');
  const res = await fetch(`${base}${TRACES_PATH}?session=${encodeURIComponent(hostId)}`).catch(
    (error: Error) => {
      throw new Error(`No sandbox answers at ${base} (${error.message}): is switchboard dev running?`);
    },
  );
  if (!res.ok)
    throw new Error(
      `The sandbox at ${base} answered ${res.status} for its traces: is it a sandbox of this version?`,
    );
  const { traces } = (await res.json()) as { traces: TurnTrace[] };
  print(out, options, { session: hostId, traces }, (r) => tracesText(r.session, r.traces));
}

/** Registers `inspect`, `tail`, `cancel` and `budget`: one session at a time. */
export function addSessionCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  sessionOptions(
    program
      .command('inspect')
      .description(
        'show a session: its owner, its runs, its pending actions and the end of its event log; or, with --settings, the settings the deployment runs with',
      )
      .argument('[session]', "the session's ref (as logs and `ref` show it), or its host id with --user")
      .option('--events <n>', 'how many of the last events to show (0: none)', String(INSPECT_EVENTS))
      .option('--redact', REDACT_HELP)
      .option(
        '--trace',
        "instead of the session's record: each turn's span tree (durations, tokens, tool outcomes) from the sandbox's OTLP receiver; sandbox only",
      )
      .option(
        '--settings',
        "instead of a session: the settings the target's functions run with (a stack's are read from its code zip)",
      ),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        session: string | undefined,
        options: SessionOptions & { events: string; redact?: boolean; settings?: boolean; trace?: boolean },
      ) => {
        if (options.trace) {
          if (session === undefined) throw usageError('--trace needs a <session>.');
          if (options.settings) throw usageError('--trace shows no settings: leave --settings out.');
          await printTraces(out, session, options);
          return true;
        }
        if (options.settings) {
          if (session !== undefined) throw usageError('--settings shows no session: leave <session> out.');
          const target = await connect(options);
          if (!target.settings)
            throw usageError(
              '--settings needs --stack or --sandbox: resources named one by one have no code to read.',
            );
          const settings = await target.settings();
          print(out, options, settings, (r) =>
            [
              `settings of ${r.source}`,
              `given: ${JSON.stringify(r.given, null, 2)}`,
              `effective (defaults applied): ${JSON.stringify(r.effective, null, 2)}`,
            ].join('\n'),
          );
          return true;
        }
        if (session === undefined) throw usageError('inspect needs a <session>, or --settings.');
        const count = Number(options.events);
        if (!(Number.isInteger(count) && count >= 0))
          throw usageError(`--events takes a whole number (got "${options.events}").`);
        const target = await connect(options);
        const found = await withSessionHint(session, options, async () =>
          inspectSession(target.rt, await refOf(target, session, options), { events: count }),
        );
        const report = { ...found, events: found.events.map((e) => shown(e, options.redact)) };
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
            r.events.length === 0
              ? 'events: none'
              : `events (the last ${r.events.length} of ${r.lastSeq}; tail --after ${Math.max(0, (r.events[0]?.seq ?? 1) - 1)} shows them live):`,
            ...r.events.map((e) => `  ${describeEvent(e)}`),
          ].join('\n'),
        );
        return true;
      },
    ),
  );

  sessionOptions(
    program
      .command('tail')
      .description("follow a session's events live, from its event log (Ctrl+C stops)")
      .argument('<session>', "the session's ref, or its host id with --user")
      .option('--after <seq>', 'start after this seq (0: the whole log; default: only new events)')
      .option(
        '--until-turn-ends',
        'stop once a turn has ended (idle or waiting on an action); at once after the log when none is running',
      )
      .option('--redact', REDACT_HELP)
      .option('--poll-ms <ms>', 'how often the log is read', '500'),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        session: string,
        options: SessionOptions & {
          after?: string;
          untilTurnEnds?: boolean;
          redact?: boolean;
          pollMs: string;
        },
      ) => {
        const after = options.after === undefined ? undefined : Number(options.after);
        if (after !== undefined && !(Number.isInteger(after) && after >= 0))
          throw usageError(`--after takes a seq, a whole number (got "${options.after}").`);
        const pollMs = Number(options.pollMs);
        if (!(Number.isInteger(pollMs) && pollMs >= 50))
          throw usageError(`--poll-ms takes at least 50 (got "${options.pollMs}").`);
        const target = await connect(options);
        await withSessionHint(session, options, async () =>
          tailSession(target.rt, await refOf(target, session, options), {
            ...(after !== undefined && { after }),
            pollMs,
            untilTurnEnds: options.untilTurnEnds ?? false,
            ...(out.signal && { signal: out.signal }),
            onEvent: (given) => {
              const event = shown(given, options.redact);
              out.stdout.write(`${options.json ? JSON.stringify(event) : describeEvent(event)}\n`);
            },
          }),
        );
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
      const runs = await withSessionHint(session, options, () =>
        options.expire ? expireRuns(target.rt, ref, target.rt.clock()) : cancelRuns(target.rt, ref),
      );
      print(out, options, { session: ref, runs }, (r) =>
        r.runs.map((x) => `${x.runId} ${x.outcome}: ${x.detail}`).join('\n'),
      );
      return runs.every((r) => r.outcome !== 'held');
    }),
  );

  withOperator(
    sessionOptions(
      program
        .command('budget')
        .description(
          "give one session more budget, at once and without a deployment: its agent's budget plus what operators added",
        )
        .argument('<session>', "the session's ref, or its host id with --user")
        .requiredOption('--add-usd <usd>', 'US dollars to add to the session’s budget (more than 0)')
        .option('--reason <text>', 'why, kept in the audit event'),
    ),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        session: string,
        options: SessionOptions & AuditedOptions & { addUsd: string; reason?: string },
      ) => {
        const usd = Number(options.addUsd);
        if (!(Number.isFinite(usd) && usd > 0 && usd <= 1_000_000))
          throw usageError(
            `--add-usd takes US dollars, more than 0 and at most 1000000 (got "${options.addUsd}").`,
          );
        operatorOf(options);
        const target = await connect(options);
        const ref = await refOf(target, session, options);
        const added = await withSessionHint(session, options, () => addBudget(target.rt, ref, usd));
        const { published } = await audit(out, target, options, {
          action: 'session_budget_added',
          tenant: added.tenant ?? null,
          owner: added.owner,
          reason: options.reason ?? null,
          sessions: 1,
          files: 0,
          runsStopped: null,
          session: ref,
          addedUsd: usd,
        });
        print(
          out,
          options,
          { ...added, audit: published },
          (r) =>
            `Session ${r.session} has $${r.budgetAddedUsd} added to its agent's budget (spent $${r.spentUsd}).`,
        );
        return true;
      },
    ),
  );
}
