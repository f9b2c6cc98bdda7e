import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { within } from './wait.ts';

// Not `new URL('../../', import.meta.url)`: in a DOM test environment the bundler rewrites that form
// into a URL of the page.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** How long `switchboard dev` may take to start on a loaded machine. */
const START_MS = 60_000;

/**
 * `switchboard dev` run as a developer runs it, in a process of its own (`node --import tsx
 * bin/switchboard.ts dev …` from the repository's root), with what it prints collected.
 */
export class DevProcess {
  stdout = '';
  stderr = '';
  /** The sandbox's base URL, as the start-up banner prints it. */
  url = '';
  private readonly waiters = new Set<() => void>();

  private constructor(private readonly child: ChildProcess) {
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      this[stream] += String(chunk);
      for (const wake of this.waiters) wake();
    };
    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
  }

  /** Starts `switchboard dev` with `args` (on port 0) and waits for its banner. */
  static async start(args: string[], env: Record<string, string> = {}): Promise<DevProcess> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bin/switchboard.ts', 'dev', '--port', '0', ...args],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const dev = new DevProcess(child);
    const started = await dev.waitFor(
      'stdout',
      /Press Ctrl\+C to stop\./,
      'the sandbox to start',
      0,
      START_MS,
    );
    dev.url = /HTTP API:\s+(http:\/\/\S+)\/api/.exec(started)?.[1] ?? '';
    return dev;
  }

  /**
   * Resolves with what the stream printed from `since` (an offset: the stream's length before the
   * action awaited) once `pattern` matches it; rejects after `timeoutMs`, or when the process ends.
   */
  waitFor(
    stream: 'stdout' | 'stderr',
    pattern: RegExp,
    what: string,
    since = 0,
    timeoutMs = 20_000,
  ): Promise<string> {
    let wake: () => void = () => undefined;
    const found = new Promise<string>((resolve, reject) => {
      wake = () => {
        const text = this[stream].slice(since);
        if (pattern.test(text)) resolve(text);
        else if (this.child.exitCode !== null || this.child.signalCode !== null)
          reject(new Error(`switchboard dev ended before ${what}.\n${this.stdout}\n${this.stderr}`));
      };
      this.child.once('exit', wake);
      wake();
    });
    this.waiters.add(wake);
    return within(found, `${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`, timeoutMs).finally(
      () => {
        this.waiters.delete(wake);
        this.child.off('exit', wake);
      },
    );
  }

  /** Stops it with SIGTERM (SIGKILL if it has not ended 10 s later) and waits until it has. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const ended = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await ended;
    clearTimeout(timer);
  }
}
