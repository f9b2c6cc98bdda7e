import type { HostAgentDefinition } from '../../lib/contract/index.ts';
import { gate } from './agents.ts';

/**
 * The `gated` agent: it streams "Hello ", waits for its message's gate (if the test set one) or
 * for a stop, then streams "world." and ends. With `numbered`, its answers count ("world 2."), so
 * that a regenerated answer shows, and it reports `usage`.
 */
export function gatedAgent(
  options: { numbered?: boolean; usage?: { inputTokens: number; outputTokens: number } } = {},
) {
  const gates = new Map<string, Promise<void>>();
  /** The messages whose turn was stopped while the agent waited. */
  const aborted = new Set<string>();
  let answers = 0;
  const definition: HostAgentDefinition = {
    info: { id: 'gated' },
    async invoke({ message }, { emit, signal }) {
      answers += 1;
      const n = answers;
      emit({ type: 'text', text: 'Hello ' });
      const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      await Promise.race([gates.get(message), stopped]);
      if (signal.aborted) {
        aborted.add(message);
        return {};
      }
      emit({ type: 'text', text: options.numbered ? `world ${n}.` : 'world.' });
      return options.usage ? { usage: options.usage } : {};
    },
  };
  /** Sets the gate of a message; the agent goes on once the returned function is called. */
  const gateOf = (message: string): (() => void) => {
    const { open, opened } = gate();
    gates.set(message, opened);
    return () => open();
  };
  return { definition, gate: gateOf, aborted };
}
