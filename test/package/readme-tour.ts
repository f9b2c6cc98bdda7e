/**
 * The README's five-minute tour as files: every fenced block whose info string names a file
 * (```` ```ts file=agents.ts ````) is that file's whole text, and the `# ` lines of the shell block
 * that runs the client are what it prints. The package test writes and runs exactly these, so the
 * tour cannot drift from what works.
 */

const FILE_BLOCK = /^```[A-Za-z]* file=(\S+)\n([\s\S]*?)^```$/gm;
const SHELL_BLOCK = /^```sh\n([\s\S]*?)^```$/gm;

/** The tour's files by name, in the order the README gives them. */
export function tourFiles(readme: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const [, name, text] of readme.matchAll(FILE_BLOCK)) {
    if (files.has(name!)) throw new Error(`README.md gives ${name} twice.`);
    files.set(name!, text!);
  }
  return files;
}

/** The output the README shows under the shell command that contains `command`: its `# ` lines. */
export function shownOutput(readme: string, command: string): string[] {
  for (const [, body] of readme.matchAll(SHELL_BLOCK)) {
    const lines = body!.split('\n');
    if (!lines.some((line) => line.includes(command))) continue;
    return lines.filter((line) => line.startsWith('# ')).map((line) => line.slice(2));
  }
  throw new Error(`README.md has no shell block with "${command}".`);
}
