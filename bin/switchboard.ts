#!/usr/bin/env node
/**
 * The `switchboard` command. `switchboard dev --agents agents.ts` runs the sandbox with the demo host
 * page (this repository's `npm start` is `switchboard dev --agents demo/agents.ts`);
 * `switchboard token --user alice --tenant acme` prints a token of the sandbox's development key (for
 * local use only). The operator commands (`inspect`, `tail`, `cancel`, `dlq list|redrive|delete|purge`,
 * `tenant suspend|resume|status`, `erase`) act on a running sandbox or a deployed stack
 * (docs/operations.md); `switchboard <command> --help` says how.
 *
 * @example
 * ```sh
 * npx switchboard dev --agents ./agents.ts --port 3000 --user alice --user bob
 * npx switchboard token --user alice --tenant acme --ttl 15m
 * npx switchboard dlq list --stack Assistant --json
 * ```
 */
import { commandName } from '../cli/io.ts';
import { runCli } from '../cli/program.ts';

// A command that follows (tail) stops on Ctrl+C; `dev` installs its own handlers and keeps running.
const controller = new AbortController();
const stop = () => controller.abort();
if (process.argv[2] !== 'dev') {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: controller.signal,
  name: commandName(process.argv[1]),
}).then(
  (code) => {
    // Exit once what was written has gone out: a pipe takes stdout asynchronously.
    if (code !== undefined) process.stdout.write('', () => process.exit(code));
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
