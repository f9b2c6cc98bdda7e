import type { Answered } from '../commands/index.ts';
import { type ErrorCode, isErrorCode } from '../errors/index.ts';
import type { SessionEvent } from '../store/index.ts';
import type { AguiEvent, ClientKnows, OpenRequest } from './types.ts';

/** The name of the `CUSTOM` event that tells a reviewer what became of her answers. */
const ANSWERED_EVENT = 'switchboard.answered';

/** The name of the `CUSTOM` event of an `agent.warning`: what the turn went on without. */
const WARNING_EVENT = 'switchboard.warning';

/** The log events that end a run. */
const RUN_ENDS = new Set(['session.status_idle', 'session.status_requires_action', 'session.deleted']);

/** How a followed run ended, as the stream needs to know it. */
export type RunEnd = { runId?: string; waits: boolean } | undefined;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * AG-UI's `RUN_ERROR`, the one way a stream answers an error: typed by `ERROR_CODES`, so the stream
 * cannot carry a code the error table does not document.
 */
export const runError = (code: ErrorCode, message: string): AguiEvent => ({
  type: 'RUN_ERROR',
  code,
  message,
});

/**
 * Turns a session's log, one event at a time, into the AG-UI events of one AG-UI run, in an order the
 * client's `verifyEvents` accepts: a text message is open only between tool calls, every message
 * and tool call is closed before the run ends, and the run ends once. What the client already holds
 * (a reconnect) is left out.
 */
export class AguiTranslator {
  private readonly open = new Set<string>();
  /** Characters of a message's text still to leave out, because the client has them. */
  private readonly skip: Map<string, number>;
  /** The whole text each message has streamed in this run, what the client held already included. */
  private readonly said = new Map<string, string>();
  private readonly pendingCalls: string[] = [];
  private error: { code: ErrorCode; message: string } | undefined;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
    private readonly knows: ClientKnows,
  ) {
    this.skip = new Map(knows.text);
  }

  started(): AguiEvent {
    return { type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId };
  }

  /** The AG-UI events for one log event of a followed run, and whether it ended that run. */
  translate(event: SessionEvent): { events: AguiEvent[]; end: RunEnd } {
    const d = event.data;
    const messageId = aguiMessageId(text(d.message_id), event.run_id);
    switch (event.type) {
      case 'agent.message.delta':
        return { events: this.delta(messageId, text(d.text)), end: undefined };
      case 'agent.tool_use':
        return { events: this.toolCall(messageId, text(d.id), text(d.name), d.args), end: undefined };
      case 'agent.tool_result':
        return { events: this.toolResult(messageId, text(d.id), d), end: undefined };
      case 'agent.warning':
        return {
          events: [
            {
              type: 'CUSTOM',
              name: WARNING_EVENT,
              value: { code: d.code, message: d.message, source: d.source },
            },
          ],
          end: undefined,
        };
      case 'final_response':
        return { events: this.final(messageId, d), end: undefined };
      case 'session.error': {
        // Written from an error's code; one an older version wrote outside the map is the agent's error.
        const code = text(d.code);
        this.error = {
          code: isErrorCode(code) ? code : 'agent_error',
          message: text(d.message) || 'The turn failed.',
        };
        return { events: [], end: undefined };
      }
      default:
        if (!RUN_ENDS.has(event.type)) return { events: [], end: undefined };
        if (event.type === 'session.deleted')
          this.error = { code: 'session_deleted', message: 'The session was deleted.' };
        else if (d.status === 'error' && !this.error)
          this.error = { code: 'agent_error', message: 'The turn failed.' };
        if (d.status === 'cancelled') this.cancelled = true;
        return {
          events: this.closeAll(),
          end: { runId: event.run_id, waits: event.type === 'session.status_requires_action' },
        };
    }
  }

  private cancelled = false;

  /**
   * The run's last event: `RUN_ERROR` for a failed turn; else `RUN_FINISHED` with AG-UI's outcome —
   * `interrupt` with the session's open requests, `cancelled`, or `success` naming the frontend tool
   * call the client is to answer.
   */
  finish(open: OpenRequest[]): AguiEvent[] {
    const closing = this.closeAll();
    if (this.error) return [...closing, runError(this.error.code, this.error.message)];
    const base = { type: 'RUN_FINISHED', threadId: this.threadId, runId: this.runId };
    if (open.length > 0)
      return [...closing, { ...base, outcome: { type: 'interrupt', interrupts: open.map(interruptOf) } }];
    if (this.cancelled) return [...closing, { ...base, outcome: { type: 'cancelled' } }];
    return [
      ...closing,
      {
        ...base,
        outcome: {
          type: 'success',
          ...(this.pendingCalls.length > 0 && { pendingToolCallIds: [...this.pendingCalls] }),
        },
      },
    ];
  }

  /**
   * A reviewer's whole run: `RUN_STARTED`, one `CUSTOM` event {@link ANSWERED_EVENT} whose value's
   * `answers` are the answers as `POST /api/sessions/{id}/actions/{actionId}` answers each (the
   * request's id, the run that hands it to the agent, `status: "queued"`, the decision recorded,
   * whether it was a retry), and `RUN_FINISHED`. Nothing of the session's log: no text of the
   * owner's turn, no other open request.
   */
  answeredOnly(answers: Answered[]): AguiEvent[] {
    return [this.started(), { type: 'CUSTOM', name: ANSWERED_EVENT, value: { answers } }, ...this.finish([])];
  }

  /** A stream that has to stop before its run ended: the client posts the same run again to go on. */
  interrupted(code: ErrorCode, message: string): AguiEvent[] {
    return [...this.closeAll(), runError(code, message)];
  }

  private delta(messageId: string, piece: string): AguiEvent[] {
    const out: AguiEvent[] = [];
    if (!this.open.has(messageId)) {
      this.open.add(messageId);
      out.push({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
    }
    this.said.set(messageId, `${this.said.get(messageId) ?? ''}${piece}`);
    const held = this.skip.get(messageId) ?? 0;
    const rest = piece.slice(held);
    this.skip.set(messageId, Math.max(0, held - piece.length));
    if (rest.length > 0) out.push({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: rest });
    return out;
  }

  private toolCall(messageId: string, id: string, name: string, args: unknown): AguiEvent[] {
    if (this.knows.toolCalls.has(id)) return this.closeAll();
    return [
      ...this.closeAll(),
      { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: name, parentMessageId: messageId },
      { type: 'TOOL_CALL_ARGS', toolCallId: id, delta: JSON.stringify(args ?? {}) },
      { type: 'TOOL_CALL_END', toolCallId: id },
    ];
  }

  private toolResult(messageId: string, id: string, d: Record<string, unknown>): AguiEvent[] {
    if (this.knows.toolResults.has(id)) return [];
    const content = JSON.stringify(d.ok === false ? { error: d.error ?? null } : (d.result ?? null));
    return [
      ...this.closeAll(),
      { type: 'TOOL_CALL_RESULT', messageId: `${messageId}.${id}`, toolCallId: id, content, role: 'tool' },
    ];
  }

  /**
   * The stored answer, so that the client's last assistant message is it: a non-empty `content` is the
   * answer whatever streamed. Content that carries on what streamed sends the rest on the same message;
   * content that says something else ends the streamed message and is a message of its own
   * (`<message id>.answer`, the same on every replay), which also carries the host action the turn
   * waits on, as a frontend tool call.
   */
  private final(messageId: string, d: Record<string, unknown>): AguiEvent[] {
    const out: AguiEvent[] = [];
    const content = text(d.content);
    const streamed = this.said.get(messageId) ?? '';
    let carrier = messageId;
    if (content.startsWith(streamed)) {
      if (content.length > streamed.length)
        out.push(...this.delta(messageId, content.slice(streamed.length)));
    } else if (content.length > 0) {
      carrier = `${messageId}.answer`;
      out.push(...this.closeAll(), ...this.delta(carrier, content));
    }
    const call = d.pending_tool_call as {
      call_id?: unknown;
      tool_name?: unknown;
      arguments?: unknown;
    } | null;
    if (call && typeof call.call_id === 'string') {
      this.pendingCalls.push(call.call_id);
      out.push(...this.toolCall(carrier, call.call_id, text(call.tool_name), call.arguments));
    }
    return out;
  }

  private closeAll(): AguiEvent[] {
    const out = [...this.open].map((messageId) => ({ type: 'TEXT_MESSAGE_END', messageId }));
    this.open.clear();
    return out;
  }
}

/**
 * The AG-UI id of what a run says on a message. A continuation carries on the assistant message
 * that called the frontend tool, but an AG-UI client reads the text after the tool's result as a
 * message of its own: what a run adds to a message an earlier run made (a run and the messages it
 * makes share a ULID) gets an id of its own, `<message id>.<run id>`, the same on every replay.
 */
export function aguiMessageId(messageId: string, runId: string | undefined): string {
  const made = /^msg_([0-9A-Za-z]+)_/.exec(messageId)?.[1];
  if (!made || !runId || runId === `run_${made}`) return messageId;
  return `${messageId}.${runId}`;
}

/** A Switchboard request as an AG-UI interrupt: `reason` is its kind, the request itself in `metadata`. */
function interruptOf(request: OpenRequest): Record<string, unknown> {
  const a = request.action;
  const message = typeof a.title === 'string' ? a.title : undefined;
  return {
    id: request.id,
    reason: request.kind,
    ...(message && { message }),
    expiresAt: new Date(request.expiresAt).toISOString(),
    metadata: { request: a },
  };
}
