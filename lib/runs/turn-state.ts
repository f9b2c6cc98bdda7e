import type { HostEvent, HostResult, PendingAction, Pricing, StopReason, Usage } from '../contract/index.ts';
import type { MessageRecord, RunOutcome } from '../store/index.ts';
import { priceUsage, roundUsd } from '../usage/index.ts';

type ToolCall = NonNullable<MessageRecord['toolCalls']>[number];

function addUsage(total: Usage | undefined, next: Usage): Usage {
  const sum = (a?: number, b?: number) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const cost = sum(total?.costUsd, next.costUsd);
  return {
    inputTokens: sum(total?.inputTokens, next.inputTokens),
    outputTokens: sum(total?.outputTokens, next.outputTokens),
    totalTokens: sum(total?.totalTokens, next.totalTokens),
    cachedInputTokens: sum(total?.cachedInputTokens, next.cachedInputTokens),
    costUsd: cost === undefined ? undefined : roundUsd(cost),
    model: next.model ?? total?.model,
  };
}

/** How a turn that ran ends: any outcome but `steered`, which is a queued message's, not a turn's. */
export type TurnOutcome = RunOutcome & { status: Exclude<RunOutcome['status'], 'steered'> };

/** What one turn has reported so far, folded from its events, and how its result is read against it. */
export class TurnState {
  text = '';
  readonly toolCalls: ToolCall[] = [];
  /** Calls of host tools: the host performs them, so they become pending host calls. */
  readonly hostCalls: PendingAction[] = [];

  constructor(
    private readonly hostTools: ReadonlySet<string> = new Set(),
    /** Prices a usage that has a model and no cost; each usage event by its own model. */
    private readonly pricing: Pricing = {},
  ) {}

  /** True when a tool_use names a host tool. */
  isHostCall(event: HostEvent): boolean {
    return event.type === 'tool_use' && this.hostTools.has(event.name);
  }
  actions: PendingAction[] = [];
  usage: Usage | undefined;
  stop: StopReason | undefined;
  /** The `detail` of the last emitted `stop`: reported when the result has none. */
  stopDetail: unknown;

  /** Folds one accepted event in. */
  apply(event: HostEvent): void {
    switch (event.type) {
      case 'text':
        this.text += event.text;
        break;
      case 'tool_use':
        if (this.hostTools.has(event.name)) {
          this.hostCalls.push({
            id: event.id,
            type: 'host_tool',
            toolName: event.name,
            args: event.args ?? {},
          });
        } else {
          this.toolCalls.push({ id: event.id, name: event.name, args: event.args });
        }
        break;
      case 'tool_result': {
        const call = this.toolCalls.find((c) => c.id === event.id);
        const outcome = { result: event.result, error: event.error, ok: event.error === undefined };
        if (call) Object.assign(call, outcome);
        else this.toolCalls.push({ id: event.id, name: event.name ?? '', ...outcome });
        break;
      }
      case 'action_required':
        this.actions = [
          ...this.actions.filter((a) => !event.actions.some((b) => b.id === a.id)),
          ...event.actions,
        ];
        break;
      case 'usage':
        this.usage = addUsage(this.usage, priceUsage(event.usage, this.pricing));
        break;
      case 'stop':
        this.stop = event.stopReason;
        this.stopDetail = event.detail;
        break;
    }
  }

  /**
   * The turn's facts: a non-empty content wins over the streamed text, the result's pending
   * actions replace the emitted ones, its usage replaces the emitted usage, its stopReason wins.
   */
  settle(result: HostResult): {
    content: string;
    pendingActions: PendingAction[];
    usage?: Usage;
    outcome: TurnOutcome;
  } {
    const content = result.content ? result.content : this.text;
    // Host calls the agent answered itself (a tool_result with their id) are not the host's to do.
    const hostCalls = this.hostCalls.filter((h) => !this.toolCalls.some((c) => c.id === h.id));
    const asked = result.pendingActions ?? this.actions;
    const pendingActions = [...asked, ...hostCalls.filter((h) => !asked.some((a) => a.id === h.id))];
    const usage = result.usage ? priceUsage(result.usage, this.pricing) : this.usage;
    let status: TurnOutcome['status'] = 'completed';
    if (result.status === 'cancelled') status = 'cancelled';
    else if (result.status === 'incomplete') status = 'incomplete';
    else if (pendingActions.length > 0) status = 'requires_action';
    const implied: StopReason =
      status === 'requires_action' ? 'requires_action' : status === 'cancelled' ? 'cancelled' : 'end_turn';
    const stopReason = result.stopReason ?? (status === 'requires_action' ? implied : (this.stop ?? implied));
    return { content, pendingActions, usage, outcome: { status, stopReason, usage } };
  }
}
