import { z } from 'zod';
import { type HostAgentDefinition, type HostAgentIO, toJsonSchema } from '../../lib/index.ts';

/**
 * What a test asks the metered agents to do, as the message's JSON: the usage events to emit (and
 * tool calls to make), then to throw, or the result to return.
 */
const PlanSchema = z.object({
  emit: z.array(z.record(z.string(), z.unknown())).default([]),
  calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.unknown() })).default([]),
  throw: z.boolean().default(false),
  result: z.unknown().optional(),
});

/** The argsSchema of the approver's request, built from zod as an agent would. */
export const WireArgs = z.object({ amount: z.number().max(100), account: z.enum(['main', 'savings']) });

async function invoke({ message }: { message: string }, { emit }: Pick<HostAgentIO, 'emit'>) {
  const plan = PlanSchema.parse(JSON.parse(message));
  for (const usage of plan.emit) emit({ type: 'usage', usage });
  for (const call of plan.calls) emit({ type: 'tool_use', id: call.id, name: call.name, args: call.args });
  if (plan.throw) throw new Error('the backend is down');
  return plan.result ?? { content: 'ok' };
}

/**
 * An answer's reply: `content`, the usage the request's args name (`replyUsage`), and the other open
 * requests carried on as they are, so that the pause stays open until the last one is answered.
 */
const resolveAction: HostAgentDefinition['resolveAction'] = async ({
  action,
  resolution,
  pendingActions,
}) => ({
  content: `answered ${JSON.stringify(resolution)}`,
  usage: (action.args as { replyUsage?: unknown } | undefined)?.replyUsage ?? {},
  pendingActions,
});

/**
 * Agents for the usage and budget tests: `capped` has a session budget of $1 and its own price for
 * `small`; `open` has no budget of its own (the server's default is switched off for it); `approver`
 * asks for an approval whose argsSchema comes from {@link toJsonSchema}.
 */
export function usageAgents(): HostAgentDefinition[] {
  return [
    {
      info: { id: 'capped' },
      budget: { sessionUsd: 1 },
      pricing: { small: { input: 0.1, output: 0.2, cachedInput: 0.02 } },
      invoke,
      resolveAction,
    },
    { info: { id: 'open' }, budget: false, invoke, resolveAction },
    {
      info: { id: 'approver' },
      async invoke({ message }) {
        if (message === 'bad schema')
          return { pendingActions: [{ id: 'req_bad', type: 'tool_approval', argsSchema: { type: 'nope' } }] };
        return {
          content: 'May I wire it?',
          pendingActions: [
            {
              id: 'req_wire',
              type: 'tool_approval',
              toolName: 'wire',
              args: { amount: 5, account: 'main' },
              argsSchema: toJsonSchema(WireArgs),
            },
          ],
        };
      },
      resolveAction,
    },
  ];
}
