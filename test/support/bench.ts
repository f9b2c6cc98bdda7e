import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx/cli');

/**
 * Runs a bench script (`bench/…`) as `npm run` does, in a process of its own: its output (stdout
 * and stderr) and exit code. `knobs` are the environment variables that change what it measures:
 * they are left out, whatever the shell that runs the suite sets, and `env` given instead.
 */
export function runBench(
  args: string[],
  knobs: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX, ...args], {
      cwd: ROOT,
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !knobs.includes(name))),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}
