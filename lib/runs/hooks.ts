import type { Runtime } from '../config/index.ts';
import type { HostAgentCancelInput, HostAgentRegistration } from '../contract/index.ts';

/**
 * Tells a backend that runs elsewhere to stop. A hook that throws is logged and never fails the
 * run; one that does not answer within `runs.cancelGraceMs` is given up on.
 */
export async function callCancelHook(
  rt: Runtime,
  agent: HostAgentRegistration,
  input: HostAgentCancelInput,
): Promise<void> {
  const hook = agent.definition.cancel;
  if (!hook) return;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), rt.settings.runs.cancelGraceMs);
  });
  try {
    const outcome = await Promise.race([
      Promise.resolve(hook.call(agent.definition, input)).then(() => 'done' as const),
      grace,
    ]);
    if (outcome === 'late')
      rt.logger.warn('A cancel hook did not answer in time; gave up on it', {
        agentId: agent.id,
        sessionId: input.conversationId,
        ...(input.runId && { runId: input.runId }),
        reason: input.reason,
      });
  } catch (error) {
    rt.logger.warn('A cancel hook failed', {
      agentId: agent.id,
      sessionId: input.conversationId,
      ...(input.runId && { runId: input.runId }),
      reason: input.reason,
      error,
    });
  } finally {
    clearTimeout(timer);
  }
}
