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
  let previousEmit: ((event: never) => void) | undefined;
  const sloppy: HostAgentDefinition = {
    info: { id: 'sloppy' },
    async invoke(_input, { emit }) {
      // An event for a turn that has ended must go nowhere.
      previousEmit?.({ type: 'text', text: 'zombie' } as never);
      previousEmit = emit as (event: never) => void;
      emit({ type: 'shout' } as never);
      emit({ type: 'tool_use', name: 'no id' } as never);
      emit({ type: 'text', text: 'fresh' });
      return {};
    },
  };
  const app: Switchboard = createSwitchboard();
  const demo = demoAgent({ chunkDelayMs: 5 });
  app.registerHostAgent({
    ...demo,
    invoke: async (input, io) => {
      count('demo');
      return demo.invoke(input, io);
    },
  });
  app.registerHostAgent(held);
  app.registerHostAgent(picky);
  app.registerHostAgent(sloppy);
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
