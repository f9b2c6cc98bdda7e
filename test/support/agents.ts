import { demoAgent } from '../../demo/demo-agent.ts';
import { createSwitchboard, type HostAgentDefinition, type Switchboard } from '../../lib/index.ts';

/** A promise a test resolves by hand: lets an agent wait at a known point of its turn. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** The agents the end-to-end tests talk to, with hooks the tests steer them by. */
export function testApp() {
  const calls: Record<string, number> = {};
  const count = (id: string) => {
    calls[id] = (calls[id] ?? 0) + 1;
  };
  let hold = gate();
  let reached = gate();
  const held: HostAgentDefinition = {
    info: { id: 'held' },
    async invoke({ message }, { emit }) {
      count('held');
      emit({ type: 'text', text: `first half of ${message}; ` });
      reached.open();
      await hold.opened;
      emit({ type: 'text', text: 'second half.' });
      return {};
    },
  };
  const picky: HostAgentDefinition = {
    info: { id: 'picky' },
    async invoke({ message }, { emit }) {
      count('picky');
      emit({ type: 'text', text: 'thinking… ' });
      if (message === 'break') return { status: 'sideways' };
      return { content: `fine: ${message}` };
    },
  };
  const app: Switchboard = createSwitchboard();
  app.registerHostAgent({
    ...demoAgent({ chunkDelayMs: 5 }),
    invoke: async (input, io) => (count('demo'), demoAgent({ chunkDelayMs: 5 }).invoke(input, io)),
  });
  app.registerHostAgent(held);
  app.registerHostAgent(picky);
  return {
    app,
    calls,
    /** Resolves when the held agent has streamed its first half. */
    reached: () => reached.opened,
    /** Lets the held agent finish; the next turn holds again. */
    release() {
      hold.open();
      hold = gate();
      reached = gate();
    },
  };
}
