import { hostSessionId } from '../../lib/auth/index.ts';
import type { HostAgentCancelInput, HostAgentDefinition } from '../../lib/contract/index.ts';
import { type Gate, gate } from './agents.ts';
import { within } from './wait.ts';

/**
 * Agents for runs that are stopped or steered: one that honours its signal, one that ignores it,
 * one that takes steering; they record what they were told. Their gates and records are kept per
 * session, so that a test sees only its own turns whatever ran before it.
 */
export function runAgents() {
  const cancels: HostAgentCancelInput[] = [];
  const invoked: { sessionId: string; message: string }[] = [];
  const gates = new Map<string, { started: Gate; release: Gate; returned: Gate }>();
  const gatesOf = (sessionId: string) => {
    let entry = gates.get(sessionId);
    if (!entry) {
      entry = { started: gate(), release: gate(), returned: gate() };
      gates.set(sessionId, entry);
    }
    return entry;
  };
  const cancel = async (input: HostAgentCancelInput) => {
    cancels.push(input);
  };
  const polite: HostAgentDefinition = {
    info: { id: 'polite' },
    async invoke({ message, conversationId }, { emit, signal }) {
      invoked.push({ sessionId: hostSessionId(conversationId), message });
      emit({ type: 'text', text: `Starting on ${message}. ` });
      gatesOf(hostSessionId(conversationId)).started.open();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return { content: 'this content is ignored: the turn was stopped' };
    },
    cancel,
  };
  const stubborn: HostAgentDefinition = {
    info: { id: 'stubborn' },
    async invoke({ message, conversationId }, { emit }) {
      invoked.push({ sessionId: hostSessionId(conversationId), message });
      const { started, release, returned } = gatesOf(hostSessionId(conversationId));
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
    async invoke({ message, conversationId }, { emit, takeSteering }) {
      invoked.push({ sessionId: hostSessionId(conversationId), message });
      const { started, release } = gatesOf(hostSessionId(conversationId));
      emit({ type: 'text', text: 'Thinking. ' });
      started.open();
      await release.opened;
      if (message.startsWith('ignore')) return { content: 'did not look' };
      const taken = await takeSteering();
      return { content: `took: ${taken.map((m) => m.content).join(', ')}` };
    },
  };
  return {
    definitions: [polite, stubborn, steerable],
    /** The messages the agents were invoked with in the session, in order. */
    invokedIn: (sessionId: string) => invoked.filter((i) => i.sessionId === sessionId).map((i) => i.message),
    /** The cancel hook calls for the session, in order. */
    cancelsOf: (sessionId: string) => cancels.filter((c) => hostSessionId(c.conversationId) === sessionId),
    /** Resolves once a turn of the session has started (emitted its first text); rejects after a timeout. */
    started: (sessionId: string) =>
      within(gatesOf(sessionId).started.opened, `a turn of ${sessionId} to start`),
    /** Lets the stubborn and the steerable agent go on in the session (every turn of it from now on). */
    release: (sessionId: string) => gatesOf(sessionId).release.open(),
    /** Resolves once the stubborn agent has returned in the session; rejects after a timeout. */
    stubbornReturned: (sessionId: string) =>
      within(gatesOf(sessionId).returned.opened, `the stubborn agent to return in ${sessionId}`),
  };
}
