import { describe, expect, it, vi } from 'vitest';
import { hostAgentRegistration } from '../../lib/agents/index.ts';
import { parseSettings, type Runtime } from '../../lib/config/index.ts';
import type { HostAgentDefinition } from '../../lib/contract/index.ts';
import { callCancelHook } from '../../lib/runs/hooks.ts';

/** Just the parts of a runtime the hook caller reads: its grace and its logger. */
function runtime(graceMs: number) {
  const warn = vi.fn();
  const rt = {
    settings: parseSettings({ runs: { cancelGraceMs: graceMs } }),
    logger: { warn },
  } as unknown as Runtime;
  return { rt, warn };
}

const agentWith = (cancel: HostAgentDefinition['cancel']) =>
  hostAgentRegistration({ info: { id: 'a' }, invoke: async () => ({}), cancel });

describe('the cancel hook', () => {
  it('is called with the input it is given', async () => {
    const cancel = vi.fn();
    const { rt } = runtime(1_000);
    await callCancelHook(rt, agentWith(cancel), { conversationId: 's', runId: 'r', reason: 'user' });
    expect(cancel).toHaveBeenCalledWith({ conversationId: 's', runId: 'r', reason: 'user' });
  });

  it('never fails the caller when it throws: the failure is logged', async () => {
    const { rt, warn } = runtime(1_000);
    const agent = agentWith(async () => {
      throw new Error('backend down');
    });
    await expect(
      callCancelHook(rt, agent, { conversationId: 's', reason: 'deleted' }),
    ).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      'A cancel hook failed',
      expect.objectContaining({ agentId: 'a', error: expect.objectContaining({ message: 'backend down' }) }),
    );
  });

  it('is given up on when it does not answer within runs.cancelGraceMs', async () => {
    const { rt, warn } = runtime(50);
    const agent = agentWith(() => new Promise<void>(() => {}));
    await expect(callCancelHook(rt, agent, { conversationId: 's', reason: 'user' })).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      'A cancel hook did not answer in time; gave up on it',
      expect.objectContaining({ reason: 'user' }),
    );
  });
});
