import type { Command } from 'commander';
import { eraseOwner, eraseTenant, resumeTenant, suspendTenant, tenantStatus } from '../lib/operate/index.ts';
import { n, run } from './command.ts';
import { type CliIo, connect, print, type TargetOptions, usageError, withTarget } from './io.ts';

/** Registers `tenant suspend|resume|status` and `erase`: a tenant or an owner as a whole. */
export function addTenantCommands(program: Command, io: CliIo, exit: (code: number) => void): void {
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
