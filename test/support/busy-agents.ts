import { hostSessionId } from '../../lib/auth/index.ts';
import type { HostAgentDefinition, PendingAction, ResolveActionInput } from '../../lib/contract/index.ts';
import { type Gate, gate } from './agents.ts';
import { within } from './wait.ts';

const WIRE: PendingAction = {
  id: 'req_wire',
  type: 'tool_approval',
  toolName: 'wire_money',
  title: 'Wire $5?',
  args: { amount: 5 },
};
const ACCOUNT: PendingAction = {
  id: 'req_account',
  type: 'user_question',
  questions: [{ question: 'Which account?', options: [{ label: 'main' }, { label: 'savings' }] }],
};

/**
 * Agents for the pause rules around busy sessions: `pair` asks two requests and can hold a turn at
 * a gate; `hasty` does the same but moves on after the first answer; `reasker` answers the first request by asking the other one again, changed; `handsfree`
 * calls a host tool but has no resolveAction. What `resolveAction` received is kept per session.
 */
export function busyAgents() {
  const resolved: ResolveActionInput[] = [];
  const holds = new Map<string, { reached: Gate; release: Gate }>();
  const holdOf = (sessionId: string) => {
    let entry = holds.get(sessionId);
    if (!entry) {
      entry = { reached: gate(), release: gate() };
      holds.set(sessionId, entry);
    }
    return entry;
  };
  const invoke: HostAgentDefinition['invoke'] = async ({ message, conversationId }) => {
    if (message === 'two') return { content: 'I need two answers.', pendingActions: [WIRE, ACCOUNT] };
    if (message !== 'hold') return { content: `echo: ${message}` };
    const { reached, release } = holdOf(hostSessionId(conversationId));
    reached.open();
    await release.opened;
    return { content: 'held' };
  };
  const pair: HostAgentDefinition = {
    info: { id: 'pair' },
    invoke,
    async resolveAction(input) {
      resolved.push(input);
      // As the seed says: while others are open, hand them back as they are and say nothing.
      if (input.pendingActions.length > 0) return { pendingActions: input.pendingActions };
      return { content: `all answered, last ${input.actionId}` };
    },
  };
  // Moves on after the first answer, carrying no request on.
  const hasty: HostAgentDefinition = {
    info: { id: 'hasty' },
    invoke,
    async resolveAction(input) {
      resolved.push(input);
      return { content: `moved on after ${input.actionId}` };
    },
  };
  const changed: PendingAction = {
    ...ACCOUNT,
    questions: [{ question: 'Which account, now that the wire is approved?', options: [{ label: 'main' }] }],
  };
  const reasker: HostAgentDefinition = {
    info: { id: 'reasker' },
    async invoke() {
      return { content: 'I need two answers.', pendingActions: [WIRE, ACCOUNT] };
    },
    async resolveAction(input) {
      resolved.push(input);
      return input.actionId === 'req_wire'
        ? { content: 'Wired. One more thing.', pendingActions: [changed] }
        : { content: `answered ${input.actionId}` };
    },
  };
  const handsfree: HostAgentDefinition = {
    info: { id: 'handsfree' },
    async invoke(_input, { emit }) {
      emit({ type: 'tool_use', id: 'call_select', name: 'select_issue', args: { number: 42 } });
      return {};
    },
  };
  return {
    definitions: [pair, hasty, reasker, handsfree],
    changed,
    /** What resolveAction received in the session, in order. */
    resolvedIn: (sessionId: string) => resolved.filter((r) => hostSessionId(r.conversationId) === sessionId),
    /** Resolves once the pair agent holds a turn of the session; rejects after a timeout. */
    held: (sessionId: string) => within(holdOf(sessionId).reached.opened, `a held turn of ${sessionId}`),
    /** Lets the held turn of the session return. */
    release: (sessionId: string) => holdOf(sessionId).release.open(),
  };
}
