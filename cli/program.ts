import { Command, CommanderError } from 'commander';
import { DEV_USAGE, devCommand } from '../sandbox/dev-command.ts';
import { TOKEN_USAGE, tokenCommand, UsageError } from '../sandbox/token-command.ts';
import { addDlqCommands } from './dlq-commands.ts';
import { type CliIo, named, reportError } from './io.ts';
import { addSessionCommands } from './session-commands.ts';
import { addTenantCommands } from './tenant-commands.ts';

/**
 * Registers a command whose arguments an existing function parses itself (`dev`, `token`): commander
 * hands it the raw arguments, and its own usage answers `--help`.
 */
function passThrough(
  program: Command,
  name: string,
  description: string,
  usage: string,
  action: (args: string[]) => Promise<number | undefined>,
  done: (code: number | undefined) => void,
  io: CliIo,
) {
  program
    .command(name)
    .description(description)
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_options: unknown, command: Command) => {
      const args = command.args;
      if (args.includes('--help') || args.includes('-h')) {
        io.stdout.write(`${named(usage, io.name)}\n`);
        return done(0);
      }
      done(await action(args));
    });
}

/** The `switchboard` program, writing to `io`; `done` receives each command's exit code (undefined: it keeps running). */
export function createProgram(io: CliIo, done: (code: number | undefined) => void): Command {
  const name = io.name ?? 'switchboard';
  const program = new Command(name)
    .description('Run Switchboard locally, and operate a sandbox or a deployed stack.')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(named(text, name)),
      writeErr: (text) => io.stderr.write(named(text, name)),
    })
    .showHelpAfterError(`(${name} --help lists the commands)`);
  passThrough(
    program,
    'dev',
    'run the sandbox (the API, the WebSocket API and the demo page) with your agents module',
    DEV_USAGE,
    async (args) => {
      await devCommand(args);
      return undefined;
    },
    done,
    io,
  );
  passThrough(
    program,
    'token',
    "print a JWT of the sandbox's development key",
    TOKEN_USAGE,
    async (args) => {
      io.stdout.write(`${await tokenCommand(args)}\n`);
      return 0;
    },
    done,
    io,
  );
  addSessionCommands(program, io, done);
  addDlqCommands(program, io, done);
  addTenantCommands(program, io, done);
  return program;
}

/**
 * Runs `switchboard` with `argv` (the arguments after the command's name): the exit code, or
 * undefined when the command keeps running (`dev`, until a signal stops it). Errors are printed
 * (JSON with `--json`), never thrown: 2 for a mistake on the command line, 1 for a failure.
 *
 * @example
 * ```ts
 * const code = await runCli(['inspect', ref, '--sandbox', url, '--json'], { stdout: process.stdout, stderr: process.stderr });
 * ```
 */
export async function runCli(argv: string[], io: CliIo): Promise<number | undefined> {
  let code: number | undefined = 0;
  const program = createProgram(io, (c) => {
    code = c;
  });
  if (argv.length === 0) {
    io.stderr.write(program.helpInformation());
    return 2;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for is a success; commander has printed whatever it had to say.
      return error.exitCode === 0 ? 0 : 2;
    }
    reportError(io, argv.includes('--json'), error);
    if (error instanceof UsageError) {
      io.stderr.write(`\n${named(error.usage, io.name)}\n`);
      return 2;
    }
    return 1;
  }
}
