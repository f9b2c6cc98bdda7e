#!/usr/bin/env node
/**
 * The `switchboard` command. `switchboard dev --agents agents.ts` runs the sandbox with the demo host
 * page (this repository's `npm start` is `switchboard dev --agents demo/agents.ts`);
 * `switchboard token --user alice --tenant acme` prints a token of the sandbox's development key (for
 * local use only).
 *
 * @example
 * ```sh
 * npx switchboard dev --agents ./agents.ts --port 3000 --user alice --user bob
 * npx switchboard token --user alice --tenant acme --ttl 15m
 * ```
 */
import { DEV_USAGE, devCommand } from '../sandbox/dev-command.ts';
import { TOKEN_USAGE, tokenCommand, UsageError } from '../sandbox/token-command.ts';

const USAGE = `Usage: switchboard <command>

Commands:
  dev     run the sandbox (the API, the WebSocket API and the demo page) with your agents module
          (switchboard dev --help)
  token   print a JWT of the sandbox's development key (switchboard token --help)`;

/** Runs a command; undefined when it keeps running (the sandbox, until a signal stops it). */
async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...args] = argv;
  const help = args.includes('--help') || args.includes('-h');
  if (command === 'dev') {
    if (help) {
      console.log(DEV_USAGE);
      return 0;
    }
    await devCommand(args);
    return undefined;
  }
  if (command === 'token') {
    if (help) {
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
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (error: unknown) => {
    const usage = error instanceof UsageError;
    console.error(
      usage ? `${error.message}\n\n${error.usage}` : error instanceof Error ? error.message : String(error),
    );
    process.exit(usage ? 2 : 1);
  },
);
