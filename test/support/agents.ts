import { demoAgent } from '../../demo/demo-agent.ts';
import { hostSessionId } from '../../lib/auth/index.ts';
import { createSwitchboard, type HostAgentDefinition, type Switchboard } from '../../lib/index.ts';
import { within } from './wait.ts';

/** A promise a test resolves by hand: lets an agent wait at a known point of its turn. */
export function gate<T = void>(): Gate<T> {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** A gate: `opened` settles with the value given to `open`. */
export interface Gate<T = void> {
  open: (value: T) => void;
  opened: Promise<T>;
}

/** The agents the end-to-end tests talk to, with hooks the tests steer them by. */
export function testApp() {
  const calls: Record<string, number> = {};
  const count = (id: string) => {
    calls[id] = (calls[id] ?? 0) + 1;
  };
  // The held agent's gates, per session, so that one test's turn never opens another's.
  const holds = new Map<string, { reached: Gate; hold: Gate }>();
  const holdOf = (sessionId: string) => {
    let entry = holds.get(sessionId);
    if (!entry) {
      entry = { reached: gate(), hold: gate() };
      holds.set(sessionId, entry);
    }
    return entry;
  };
  const held: HostAgentDefinition = {
    info: { id: 'held' },
    async invoke({ message, conversationId }, { emit }) {
      count('held');
      const { reached, hold } = holdOf(hostSessionId(conversationId));
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
      if (message === 'pause on nothing')
        return { content: 'Nothing to wait on.', status: 'requires_action' };
      return { content: `fine: ${message}` };
    },
  };
  // The emit of the session's previous turn, per session.
  const previousEmit = new Map<string, (event: never) => void>();
  const sloppy: HostAgentDefinition = {
    info: { id: 'sloppy' },
    async invoke({ conversationId }, { emit }) {
      // An event for a turn that has ended must go nowhere.
      previousEmit.get(conversationId)?.({ type: 'text', text: 'zombie' } as never);
      previousEmit.set(conversationId, emit as (event: never) => void);
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
    /** Resolves when the held agent has streamed its first half in the session; rejects after a timeout. */
    reached: (sessionId: string) =>
      within(holdOf(sessionId).reached.opened, `the held agent to stream its first half in ${sessionId}`),
    /** Lets the held agent finish its turn in the session; the session's next turn holds again. */
    release(sessionId: string) {
      holdOf(sessionId).hold.open();
      holds.delete(sessionId);
    },
  };
}
