import type { Command } from 'commander';
import { ownerIdentity, sessionRef, withScope } from '../lib/auth/index.ts';
import { SwitchboardError } from '../lib/errors/index.ts';
import { type OperatorTarget, resourcesTarget, sandboxTarget, stackTarget } from '../lib/operate/index.ts';
import { UsageError } from '../sandbox/token-command.ts';

/** Where a command writes, and what stops a command that follows (tail) until it is told to. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  signal?: AbortSignal;
  /**
   * The command's name as the user ran it (`switchboard`, or the bin's name it was installed under),
   * which hints and help print. Default `switchboard`.
   */
  name?: string;
}

/**
 * The command's name from the script Node runs (`process.argv[1]`): the bin's file name without its
 * extension, so that a hint names what the user typed, never the runner (`tsx`, `node`) before it.
 */
export function commandName(script: string | undefined): string {
  const base = script
    ?.split(/[\\/]/)
    .at(-1)
    ?.replace(/\.(?:[cm]?js|[cm]?ts)$/, '');
  return base && /^[\w.-]+$/.test(base) && base !== 'cli' && base !== 'index' ? base : 'switchboard';
}

/** `text` with the command's name where it says `switchboard <something>`: hints, usages, help. */
export const named = (text: string, name = 'switchboard') =>
  name === 'switchboard' ? text : text.replace(/\bswitchboard(?= [a-z<-])/g, name);

/** The sandbox the operator commands reach when no stack or table is named: `switchboard dev`'s default address. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:3000';

/** The options every operator command takes: where it acts, and how it prints. */
export interface TargetOptions {
  sandbox?: string;
  stack?: string;
  construct?: string;
  region?: string;
  table?: string;
  queueUrl?: string;
  dlqUrl?: string;
  bucket?: string;
  eventBus?: string;
  json?: boolean;
}

/** Adds the target and output options to an operator command. */
export function withTarget(command: Command): Command {
  return command
    .option(
      '--sandbox <url>',
      `a running sandbox (switchboard dev), by its address (default ${DEFAULT_SANDBOX_URL})`,
    )
    .option(
      '--stack <name>',
      'a deployed stack, found by name (its outputs); AWS credentials from the usual chain',
    )
    .option('--construct <id>', 'with --stack: which Switchboard construct, when the stack has several')
    .option('--region <region>', 'the AWS region of the stack (default: the usual chain)')
    .option('--table <name>', 'a deployed table by name, instead of --stack (with --queue-url and --dlq-url)')
    .option('--queue-url <url>', "the turns queue's URL, with --table")
    .option('--dlq-url <url>', "the dead-letter queue's URL, with --table")
    .option('--bucket <name>', 'the file bucket, with --table')
    .option('--event-bus <name>', "the domain events' bus, with --table: where the audit event goes")
    .option('--json', 'print JSON instead of text');
}

/** The target the options name: a stack, resources named one by one, or a sandbox. */
export function connect(options: TargetOptions): Promise<OperatorTarget> {
  const named = [options.stack, options.table, options.sandbox].filter((x) => x !== undefined).length;
  if (named > 1) throw usageError('Name one target: --sandbox, --stack or --table.');
  if (options.stack !== undefined)
    return stackTarget(options.stack, { region: options.region, construct: options.construct });
  if (options.table !== undefined) {
    if (!options.queueUrl || !options.dlqUrl)
      throw usageError('--table needs --queue-url and --dlq-url (or use --stack).');
    return resourcesTarget(
      {
        table: options.table,
        queueUrl: options.queueUrl,
        dlqUrl: options.dlqUrl,
        bucket: options.bucket ?? '',
        region: options.region,
        ...(options.eventBus !== undefined && { eventBus: options.eventBus }),
      },
      `table ${options.table}`,
    );
  }
  return sandboxTarget(options.sandbox ?? DEFAULT_SANDBOX_URL);
}

/**
 * A session's ref: given as it is, or a host's own id in the scope of `--user` (and `--tenant`), keyed
 * with the target's session-ref key (the sandbox hands it on; a stack's is read from its secret).
 */
export async function refOf(
  target: OperatorTarget,
  session: string,
  options: { user?: string; tenant?: string },
): Promise<string> {
  if (options.user === undefined) {
    if (options.tenant !== undefined) throw usageError('--tenant needs --user.');
    return session;
  }
  const owner = ownerIdentity({ owner: options.user, ...(options.tenant && { tenant: options.tenant }) });
  return sessionRef(withScope(await target.rt.refKey(), owner), session);
}

/** A mistake on an operator command's line: exit code 2, with a hint at its help. */
export const usageError = (message: string) => new UsageError(message, 'See switchboard <command> --help.');

/** Prints a result: JSON with --json, else the text `describe` makes of it. */
export function print<T>(
  io: CliIo,
  options: { json?: boolean },
  result: T,
  describe: (result: T) => string,
): void {
  io.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${describe(result)}\n`);
}

/** An error as the command reports it: its code and message (JSON with --json); never a stack trace. */
export function reportError(io: CliIo, json: boolean, error: unknown): void {
  const code =
    error instanceof SwitchboardError ? error.code : error instanceof UsageError ? 'usage' : 'error';
  const message = named(error instanceof Error ? error.message : String(error), io.name);
  io.stderr.write(json ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}\n`);
}
