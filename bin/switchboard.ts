#!/usr/bin/env -S npx tsx
/**
 * The `switchboard` command. `switchboard token --user alice --tenant acme` prints a token of the
 * sandbox's development key (for local use only).
 *
 * @example
 * ```sh
 * npm run token -- --user alice --tenant acme --ttl 15m
 * ```
 */
import { TOKEN_USAGE, tokenCommand, UsageError } from '../sandbox/token-command.ts';

const USAGE = `Usage: switchboard <command>

Commands:
  token   print a JWT of the sandbox's development key (switchboard token --help)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'token') {
    if (args.includes('--help') || args.includes('-h')) {
      console.log(TOKEN_USAGE);
      return 0;
    }
    console.log(await tokenCommand(args));
    return 0;
  }
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE);
    return command === undefined ? 2 : 0;
  }
  throw new UsageError(`Unknown command "${command}".`, USAGE);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UsageError ? `${error.message}\n\n${error.usage}` : String(error));
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
