import { EventGate, validateResult } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import type { BudgetLeft, HostAgentIO, HostEvent, HostResult, Usage } from '../contract/index.ts';
import {
  AgentFailedError,
  InvalidHostResultError,
  SERVER_ERROR_MESSAGE,
  SwitchboardError,
} from '../errors/index.ts';
import type { CancelReason, RunOutcome } from '../store/index.ts';
import { costOf, roundUsd, type TurnAccounting } from '../usage/index.ts';
import { closingSpend } from './accounting.ts';
import type { EventStream } from './event-stream.ts';
import { TurnState } from './turn-state.ts';
import type { RunWatch } from './watch.ts';

/** How one call of `invoke` or `resolveAction` went: a usable result, or a closed turn. */
export type CallOutcome =
  | { ok: true; result: HostResult; state: TurnState }
  | { ok: false; outcome: RunOutcome };

/**
 * Calls the agent with an `io` whose `emit` is guarded (a malformed event ignored, one warning per
 * turn; nothing after the call returned) and published to the log as it comes; then validates
 * what it returned. A throw or an unusable result closes the turn as error.
 */
export async function callAgent(
  { log, metrics }: { log: Runtime['logger']; metrics: Runtime['metrics'] },
  stream: EventStream,
  messageId: string,
  hostTools: ReadonlySet<string>,
  call: (io: Pick<HostAgentIO, 'emit' | 'signal' | 'budgetLeft'>) => Promise<unknown>,
  stopping?: Stopping,
  accounting?: TurnAccounting,
  /** A silent host decision: nothing the agent emits is published. */
  silent = false,
): Promise<CallOutcome> {
  const gate = new EventGate((message, detail) => log.warn(message, detail));
  const state = new TurnState(hostTools, accounting?.pricing);
  const controller = new AbortController();
  const emit = (raw: HostEvent) => {
    const event = gate.accept(raw);
    if (!event) return;
    const host = state.isHostCall(event);
    state.apply(event);
    if (event.type === 'warning') warned(log, metrics, event);
    if (!silent) publish(stream, messageId, event, host);
  };
  try {
    const budgetLeft = () => leftOf(accounting, state);
    const invocation = call({ emit, signal: controller.signal, budgetLeft }).then((value) => ({ value }));
    const first = stopping
      ? await Promise.race([invocation, stopping.watch.stopped.then((reason) => ({ reason }))])
      : await invocation;
    if ('value' in first) {
      gate.close();
      return { ok: true, result: validateResult(first.value), state };
    }
    // Stopped: abort the signal, tell a backend that runs elsewhere, and wait the grace for the agent
    // to return what it has; one that ignores the signal is abandoned and its later events dropped.
    controller.abort(first.reason);
    const [, late] = await Promise.all([
      stopping?.onStop(first.reason),
      graceFor(
        invocation.catch(() => ({ value: undefined })),
        stopping?.graceMs ?? 0,
      ),
    ]);
    gate.close();
    if (!late) log.warn('The agent ignored the stop; it was abandoned', { reason: first.reason });
    return {
      ok: true,
      result: { status: 'cancelled', stopReason: 'cancelled', detail: { reason: first.reason } },
      state,
    };
  } catch (error) {
    gate.close();
    // Every failure is logged, with the error itself (its stack names the agent's line): the caller's
    // session.error says what went wrong, the log says where.
    if (error instanceof InvalidHostResultError)
      log.error('The agent returned a result the runtime cannot use', {
        error,
        code: error.code,
        issues: error.issues,
      });
    else
      log.error('The agent failed', {
        error,
        ...(error instanceof SwitchboardError && { code: error.code, issues: error.issues }),
      });
    // What the agent reported it used before it failed was spent all the same.
    await accounting?.count(state.usage);
    return { ok: false, outcome: failTurn(stream, error, accounting, state.usage) };
  }
}

/**
 * `io.budgetLeft()`: the room the run started with, less what this turn has reported so far (its
 * usage events, priced as the turn's usage is). Asking again reads nothing from the table.
 */
async function leftOf(
  accounting: TurnAccounting | undefined,
  state: TurnState,
): Promise<BudgetLeft | undefined> {
  const room = await accounting?.room();
  return room && { scope: room.scope, usd: roundUsd(room.usd - costOf(state.usage)) };
}

/** How a run may be stopped while the agent works. */
export interface Stopping {
  watch: RunWatch;
  /** Tells the agent's cancel hook (given up on after the grace). */
  onStop(reason: CancelReason): Promise<void>;
  graceMs: number;
}

/** What `work` resolves with, or undefined once `ms` have passed; the timer does not outlive the race. */
async function graceFor<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function publish(stream: EventStream, messageId: string, event: HostEvent, host: boolean): void {
  switch (event.type) {
    case 'text':
      stream.text(messageId, event.text);
      break;
    case 'tool_use':
      if (host) {
        // The host contract's announcement of a host action: the host performs it when the turn pauses.
        stream.append('tool_call', {
          message_id: messageId,
          category: 'host',
          call_id: event.id,
          name: event.name,
          arguments: event.args ?? {},
        });
      } else {
        stream.append('agent.tool_use', {
          message_id: messageId,
          id: event.id,
          name: event.name,
          args: event.args ?? null,
          ...(event.remembered && { remembered: true as const }),
        });
      }
      break;
    case 'tool_result':
      stream.append('agent.tool_result', {
        message_id: messageId,
        id: event.id,
        name: event.name ?? null,
        ok: event.error === undefined,
        result: event.result ?? null,
        error: event.error ?? null,
      });
      break;
    case 'warning':
      stream.append('agent.warning', {
        message_id: messageId,
        code: event.code,
        message: event.message,
        source: event.source ?? null,
      });
      break;
    default:
      // action_required, usage and stop are folded into the turn's outcome and announced at its end.
      break;
  }
}

/** A warning of the agent's (or of the runtime's loop for it): a log line, and a count of unavailable MCP servers. */
function warned(
  log: Runtime['logger'],
  metrics: Runtime['metrics'],
  event: Extract<HostEvent, { type: 'warning' }>,
): void {
  log.warn('The agent warned', { code: event.code, source: event.source, warning: event.message });
  if (event.code === 'mcp_server_unavailable') metrics.add('McpServersUnavailable', 1);
}

/**
 * Closes a turn as error: the error is in the log, no message or pending action is stored. Usage
 * the agent reported before it failed is counted; under `maskServerErrors` a 500's message is generic.
 */
export function failTurn(
  stream: EventStream,
  error: unknown,
  accounting?: Pick<TurnAccounting, 'spentUsd' | 'maskServerErrors'>,
  usage?: Usage,
): RunOutcome {
  const e = error instanceof SwitchboardError ? error : new AgentFailedError();
  const message = accounting?.maskServerErrors && e.status >= 500 ? SERVER_ERROR_MESSAGE : e.message;
  stream.append('session.error', { code: e.code, message, status: e.status });
  stream.append('session.status_idle', {
    status: 'error',
    stop_reason: 'error',
    detail: null,
    ...(accounting && closingSpend(accounting.spentUsd, usage)),
  });
  return { status: 'error', stopReason: 'error', error: { code: e.code, message }, ...(usage && { usage }) };
}
