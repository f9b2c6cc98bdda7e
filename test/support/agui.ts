import { randomUUID } from 'node:crypto';
import { type BaseEvent, HttpAgent, type RunAgentParameters } from '@ag-ui/client';

/**
 * One AG-UI run with the protocol's own client: a thread with one user message, run against an agent's
 * URL (`${sandbox.aguiUrl}/${agentId}`). Returns the client (its `messages` are the thread after the
 * run) and every event it received, in order.
 */
export async function runAgUi(
  url: string,
  threadId: string,
  content: string,
  parameters: RunAgentParameters = {},
): Promise<{ agent: HttpAgent; events: BaseEvent[] }> {
  const agent = new HttpAgent({ url, threadId, initialMessages: [] });
  agent.addMessage({ id: randomUUID(), role: 'user', content });
  const events: BaseEvent[] = [];
  await agent.runAgent(parameters, { onEvent: ({ event }) => void events.push(event) });
  return { agent, events };
}
