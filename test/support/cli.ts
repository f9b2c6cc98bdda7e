import { runCli } from '../../cli/program.ts';

/** Runs the `switchboard` command in this process against the sandbox at `url`: what it printed and its exit code. */
export async function cliAgainst(url: string, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli([...args, '--sandbox', url], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as unknown };
}
