import type {
  HostAgentCancelInput,
  HostAgentDefinition,
  ResolveActionInput,
} from '../../lib/contract/index.ts';

const ARGS_SCHEMA = {
  type: 'object',
  properties: { amount: { type: 'number', maximum: 100 } },
  required: ['amount'],
  additionalProperties: false,
};

/** The requests the pausing agent asks, by the message that asks them. */
function askedFor(message: string) {
  const wire = {
    id: 'req_wire',
    type: 'tool_approval' as const,
    toolName: 'wire_money',
    title: 'Wire $5?',
    args: { amount: 5 },
    argsSchema: ARGS_SCHEMA,
  };
  const account = {
    id: 'req_account',
    type: 'user_question' as const,
    questions: [{ question: 'Which account?', options: [{ label: 'main' }, { label: 'savings' }] }],
  };
  if (message === 'wire') return [wire];
  if (message === 'two') return [wire, account];
  if (message === 'page')
    return [{ id: 'req_page', type: 'client_tool' as const, toolName: 'read_clipboard' }];
  if (message === 'lapsed')
    return [{ ...wire, id: 'req_lapsed', expiresAt: new Date(Date.now() - 1_000).toISOString() }];
  return [];
}

/**
 * Agents that pause: they ask for approvals and questions, call host tools, and record every
 * resolveAction and cancel they get, so tests can check what the runtime handed over.
 */
export function pauseAgents() {
  const resolved: ResolveActionInput[] = [];
  const cancelled: HostAgentCancelInput[] = [];
  const pauser = (id: string, extra: Partial<HostAgentDefinition> = {}): HostAgentDefinition => ({
    info: { id },
    async invoke({ message }) {
      const pendingActions = askedFor(message);
      return pendingActions.length > 0
        ? { content: 'I need your OK first.', pendingActions }
        : { content: `echo: ${message}` };
    },
    async resolveAction(input) {
      resolved.push(input);
      if (input.pendingActions.length > 0) return { pendingActions: input.pendingActions };
      const r = input.resolution;
      return {
        content: `resolved ${input.actionId}: ${JSON.stringify(r.decision ?? r.answers ?? r.output ?? r.error)}${r.approvedArgs ? ` with ${JSON.stringify(r.approvedArgs)}` : ''}`,
      };
    },
    async cancel(input) {
      cancelled.push(input);
    },
    ...extra,
  });
  const driver: HostAgentDefinition = {
    info: { id: 'driver' },
    async invoke({ message }, { emit }) {
      if (message !== 'one' && message !== 'both' && message !== 'mixed')
        return { content: `ok: ${message}` };
      emit({ type: 'text', text: 'Working on it. ' });
      emit({ type: 'tool_use', id: 'call_select', name: 'select_issue', args: { number: 42 } });
      if (message === 'both')
        emit({ type: 'tool_use', id: 'call_open', name: 'open_page', args: { name: 'agents' } });
      // A host call and an approval, open together.
      if (message === 'mixed')
        return {
          pendingActions: [{ id: 'req_confirm', type: 'tool_approval', toolName: 'confirm', args: {} }],
        };
      return {};
    },
    async resolveAction(input, { lookAtScreen }) {
      resolved.push(input);
      if (input.pendingActions.length > 0) return { pendingActions: input.pendingActions };
      const r = input.resolution;
      const screens = await lookAtScreen();
      return {
        content: `${r.outcome === 'failed' ? 'It failed' : 'Done'}: ${JSON.stringify(r.result)}${screens.length ? ` (saw ${screens.length} screenshot)` : ''}`,
      };
    },
    async cancel(input) {
      cancelled.push(input);
    },
  };
  return {
    resolved,
    cancelled,
    definitions: [
      pauser('pauser'),
      pauser('strict', { hitl: { onTimeout: 'cancel' }, pendingActionPolicy: 'cancel' }),
      pauser('mute', { resolveAction: undefined }),
      driver,
    ],
  };
}
