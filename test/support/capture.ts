import { inspect } from 'node:util';

/**
 * Everything written to stdout, stderr and the console from `captureOutput()` until `restore()`:
 * Powertools' Logger writes JSON lines to the process's streams through a console of its own; the
 * sandbox's gateway, poller and schedule use the global console. Both are captured, as written, and
 * still written. What a test checks no log holds (a key, a header, a prompt) is looked for in it.
 */
export function captureOutput(): { chunks: string[]; text(): string; restore(): void } {
  const captured: string[] = [];
  const undo: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      captured.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (write as (...args: unknown[]) => boolean).call(stream, chunk, ...rest);
    }) as typeof stream.write;
    undo.push(() => {
      stream.write = write;
    });
  }
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
    const original = console[method];
    console[method] = (...args: unknown[]) => {
      captured.push(args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 10 }))).join(' '));
      original.apply(console, args);
    };
    undo.push(() => {
      console[method] = original;
    });
  }
  return {
    chunks: captured,
    text: () => captured.join(''),
    restore: () => {
      for (const step of undo.splice(0)) step();
    },
  };
}
