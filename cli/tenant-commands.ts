import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import {
  type Audited,
  eraseOwner,
  eraseTenant,
  type OperatorAction,
  type OperatorTarget,
  recordOperatorAction,
  resumeTenant,
  suspendTenant,
  tenantStatus,
} from '../lib/operate/index.ts';
import { n, run } from './command.ts';
import { type CliIo, connect, print, type TargetOptions, usageError, withTarget } from './io.ts';

/** The options of a command that is audited: who runs it. */
export type AuditedOptions = TargetOptions & { by?: string };

/** Adds `--by` to an audited command. */
export const withOperator = (command: Command) =>
  command.option(
    '--by <name>',
    'who does this, as the audit event and log line record it (default: the local user, user@host)',
  );

/** Who runs the command: `--by`, else the local user at this machine. */
export function operatorOf(options: AuditedOptions): string {
  if (options.by !== undefined) {
    const by = options.by.trim();
    if (by === '') throw usageError('--by must name someone.');
    return by;
  }
  let user = process.env.USER ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {}
  return `${user}@${hostname()}`;
}

/**
 * Records the action: the `Operator Action` event on the target's bus, and one JSON line on
 * standard error (the operator's own log), which also says when the bus did not take the event.
 */
export async function audit(
  io: CliIo,
  target: OperatorTarget,
  options: AuditedOptions,
  fields: Omit<OperatorAction, 'version' | 'at' | 'operator'>,
): Promise<Audited> {
  const audited = await recordOperatorAction(target.rt, { ...fields, operator: operatorOf(options) });
  io.stderr.write(
    `${JSON.stringify({ level: audited.published === 'failed' ? 'WARN' : 'INFO', message: 'Operator action', target: target.label, event: audited.published, ...audited.record })}\n`,
  );
  return audited;
}

/** Registers `tenant suspend|resume|status` and `erase`: a tenant or an owner as a whole. */
export function addTenantCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
  const tenant = program.command('tenant').description("suspend or resume a tenant's use of the runtime");
  withOperator(
    withTarget(
      tenant
        .command('suspend')
        .description("refuse the tenant's new messages (403 tenant_suspended) and stop its running turns")
        .argument('<tenant>', 'the tenant id, as the authoriser names it')
        .option('--reason <text>', 'why, kept with the suspension'),
    ),
  ).action(
    run(io, exit, async (out, id: string, options: AuditedOptions & { reason?: string }) => {
      operatorOf(options);
      const target = await connect(options);
      const suspended = await suspendTenant(target.rt, id, options.reason);
      const { published } = await audit(out, target, options, {
        action: 'tenant_suspended',
        tenant: id,
        owner: null,
        reason: options.reason ?? null,
        sessions: suspended.stopped.length,
        files: 0,
        runsStopped: suspended.stopped.reduce((all, s) => all + s.runIds.length, 0),
        session: null,
        addedUsd: null,
      });
      const result = { ...suspended, audit: published };
      print(out, options, result, (r) =>
        [
          `Tenant ${r.tenant} is suspended since ${r.suspendedAt}.`,
          ...r.stopped.map((s) => `  stopping ${s.runIds.join(', ')} of ${s.sessionId}`),
        ].join('\n'),
      );
      return true;
    }),
  );
  withOperator(
    withTarget(
      tenant
        .command('resume')
        .description("take the tenant's messages again")
        .argument('<tenant>', 'the tenant id'),
    ),
  ).action(
    run(io, exit, async (out, id: string, options: AuditedOptions) => {
      operatorOf(options);
      const target = await connect(options);
      const resumed = await resumeTenant(target.rt, id);
      const audited = resumed
        ? await audit(out, target, options, {
            action: 'tenant_resumed',
            tenant: id,
            owner: null,
            reason: null,
            sessions: 0,
            files: 0,
            runsStopped: 0,
            session: null,
            addedUsd: null,
          })
        : undefined;
      print(out, options, { tenant: id, resumed, ...(audited && { audit: audited.published }) }, (r) =>
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

  withOperator(
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
    ),
  ).action(
    run(
      io,
      exit,
      async (
        out,
        options: AuditedOptions & {
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
        operatorOf(options);
        const target = await connect(options);
        const dryRun = options.dryRun ?? false;
        const done =
          options.user === undefined
            ? await eraseTenant(target.rt, options.tenant as string, { dryRun })
            : await eraseOwner(
                target.rt,
                { owner: options.user, ...(options.tenant !== undefined && { tenant: options.tenant }) },
                { dryRun },
              );
        // A dry run changes nothing: nothing to audit.
        const audited = dryRun
          ? undefined
          : await audit(out, target, options, {
              action: 'data_erased',
              tenant: options.tenant ?? null,
              owner: options.user ?? null,
              reason: null,
              sessions: done.sessions.length,
              files: done.files.length,
              runsStopped: null,
              session: null,
              addedUsd: null,
            });
        const erased = { ...done, ...(audited && { audit: audited.published }) };
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
