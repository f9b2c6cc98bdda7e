import type { HostAgentDefinition } from '../../lib/contract/index.ts';

/**
 * The `paced` agent of the client and hook tests: it streams the numbers 1 to `message` (20 when the
 * message is no number), 40 ms apart, so that a test can stop it or break its socket mid-stream.
 */
export const numbersAgent: HostAgentDefinition = {
  info: { id: 'paced' },
  async invoke({ message }, { emit, signal }) {
    const count = Number(message) || 20;
    for (let i = 1; i <= count && !signal.aborted; i += 1) {
      emit({ type: 'text', text: `${i} ` });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    return signal.aborted ? { status: 'cancelled', stopReason: 'cancelled' } : {};
  },
};
