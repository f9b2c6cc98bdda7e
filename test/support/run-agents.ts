import type { HostAgentCancelInput, HostAgentDefinition } from '../../lib/agents/index.ts';
import { gate } from './agents.ts';

/**
 * Agents for runs that are stopped: one that honours its signal, one that ignores it, one that
 * streams a long answer; they record what they were told.
 */
export function runAgents() {
  const cancels: HostAgentCancelInput[] = [];
  const invoked: string[] = [];
  let started = gate();
  let release = gate();
  let returned = gate();
  const cancel = async (input: HostAgentCancelInput) => {
    cancels.push(input);
  };
  const polite: HostAgentDefinition = {
    info: { id: 'polite' },
    async invoke({ message }, { emit, signal }) {
      invoked.push(message);
      emit({ type: 'text', text: `Starting on ${message}. ` });
      started.open();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return { content: 'this content is ignored: the turn was stopped' };
    },
    cancel,
  };
  const stubborn: HostAgentDefinition = {
    info: { id: 'stubborn' },
    async invoke({ message }, { emit }) {
      invoked.push(message);
      emit({ type: 'text', text: 'I will not stop. ' });
      started.open();
      await release.opened;
      emit({ type: 'text', text: 'late text' });
      returned.open();
      return {};
    },
    cancel,
  };
  const steerable: HostAgentDefinition = {
    info: { id: 'steerable' },
    async invoke({ message }, { emit, takeSteering }) {
      invoked.push(message);
      emit({ type: 'text', text: 'Thinking. ' });
      started.open();
      await release.opened;
      if (message.startsWith('ignore')) return { content: 'did not look' };
      const taken = await takeSteering();
      return { content: `took: ${taken.map((m) => m.content).join(', ')}` };
    },
  };
  const long: HostAgentDefinition = {
    info: { id: 'long' },
    async invoke({ message }, { emit }) {
      const count = Number(message) || 100;
      for (let i = 1; i <= count; i += 1) {
        emit({ type: 'text', text: `${i} ` });
        // A macrotask between chunks, so that the stream interleaves with the reconnecting hosts.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return {};
    },
  };
  return {
    cancels,
    invoked,
    definitions: [polite, stubborn, steerable, long],
    started: () => started.opened,
    releaseStubborn: () => release.open(),
    release: () => release.open(),
    stubbornReturned: () => returned.opened,
    reset() {
      started = gate();
      release = gate();
      returned = gate();
    },
  };
}
