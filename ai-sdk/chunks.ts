import type { FinishReason, UIMessageChunk } from 'ai';
import type { EventOf, SwitchboardEvent } from '../client/index.ts';
import type { SwitchboardMessageMetadata } from './options.ts';

/** The open requests a chat's parts may answer: approvals, client tools and host calls, by id. */
export type OpenRequests = Map<string, 'tool_approval' | 'client_tool' | 'host_tool'>;

/** The events that end a turn: a stream that follows the turn ends with one. */
export const TURN_ENDS = new Set(['session.status_idle', 'session.status_requires_action']);

/** Switchboard's `stop_reason` as the AI SDK's finish reason. */
const FINISH_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  requires_action: 'tool-calls',
  cancelled: 'other',
  max_turns: 'length',
  limit: 'length',
  budget_reached: 'length',
  error: 'error',
};

/** A tool part of a UI message, as far as the transport reads it. */
interface ToolPartView {
  type: string;
  toolCallId: string;
  state: string;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
}

/** Whether a UI message's part is a tool's (a backend tool, an approval, a client tool or a host call). */
export const isToolPart = (part: { type: string }): part is ToolPartView =>
  part.type === 'dynamic-tool' || part.type.startsWith('tool-');

/**
 * Turns one session's events into `UIMessageChunk`s, for one stream: a `start` first (with the
 * answer's message id when it is known), a step per run, text parts per message, tool parts for
 * backend tools, approvals, client tools and host calls, and `finish` at the turn's end.
 */
export class ChunkMapper {
  #started = false;
  #stepPending = false;
  #openText: string | undefined;
  /** Text streamed per message id: a `final_response` with none shows its content instead. */
  readonly #streamed = new Set<string>();
  #texts = 0;

  constructor(
    private readonly messageId: string | undefined,
    private readonly open: OpenRequests,
  ) {}

  /** The chunks that begin the stream (a continuation of a message that is already shown: no id). */
  #begin(messageId: string | undefined, out: UIMessageChunk[]): void {
    if (!this.#started) {
      this.#started = true;
      const id = this.messageId ?? messageId;
      out.push(id ? { type: 'start', messageId: id } : { type: 'start' });
    }
    if (this.#stepPending) {
      this.#stepPending = false;
      out.push({ type: 'start-step' });
    }
  }

  #closeText(out: UIMessageChunk[]): void {
    if (this.#openText === undefined) return;
    out.push({ type: 'text-end', id: this.#openText });
    this.#openText = undefined;
  }

  #text(messageId: string, text: string, out: UIMessageChunk[]): void {
    this.#begin(messageId, out);
    if (this.#openText === undefined) {
      this.#texts += 1;
      this.#openText = `${messageId}:text:${this.#texts}`;
      out.push({ type: 'text-start', id: this.#openText });
    }
    this.#streamed.add(messageId);
    out.push({ type: 'text-delta', id: this.#openText, delta: text });
  }

  /** A tool part: the call's input, shown before its output or its approval. */
  #toolInput(
    messageId: string,
    toolCallId: string,
    toolName: string,
    input: unknown,
    out: UIMessageChunk[],
    extra: { providerExecuted?: boolean; title?: string } = {},
  ): void {
    this.#begin(messageId, out);
    this.#closeText(out);
    out.push({
      type: 'tool-input-available',
      toolCallId,
      toolName,
      input: input ?? {},
      dynamic: true,
      ...(extra.providerExecuted && { providerExecuted: true }),
      ...(extra.title !== undefined && { title: extra.title }),
    });
  }

  /** The chunks of one event (none for an event that does not map). */
  map(event: SwitchboardEvent, last: boolean): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    switch (event.type) {
      case 'session.status_running':
        this.#stepPending = true;
        break;
      case 'agent.message.delta':
        this.#text(event.data.message_id, event.data.text, out);
        break;
      case 'agent.tool_use':
        this.#toolInput(event.data.message_id, event.data.id, event.data.name, event.data.args, out, {
          providerExecuted: true,
        });
        break;
      case 'agent.tool_result':
        this.#begin(event.data.message_id, out);
        out.push(
          event.data.ok
            ? {
                type: 'tool-output-available',
                toolCallId: event.data.id,
                output: event.data.result ?? null,
                dynamic: true,
                providerExecuted: true,
              }
            : {
                type: 'tool-output-error',
                toolCallId: event.data.id,
                errorText: String(event.data.error ?? 'the tool failed'),
                dynamic: true,
                providerExecuted: true,
              },
        );
        break;
      case 'action.required':
        for (const action of event.data.actions ?? []) {
          const name = action.toolName ?? action.type;
          const title = action.title;
          if (action.type === 'tool_approval') {
            this.open.set(action.id, 'tool_approval');
            this.#toolInput(event.data.message_id, action.id, name, action.args, out, { title });
            out.push({ type: 'tool-approval-request', approvalId: action.id, toolCallId: action.id });
          } else if (action.type === 'client_tool') {
            this.open.set(action.id, 'client_tool');
            this.#toolInput(event.data.message_id, action.id, name, action.args, out, { title });
          } else {
            // A question has no AI SDK part: it arrives as a data part, answered with the client.
            this.#begin(event.data.message_id, out);
            this.#closeText(out);
            out.push({ type: 'data-switchboard-request', id: action.id, data: { action, status: 'open' } });
          }
        }
        break;
      case 'tool_call':
        this.open.set(event.data.call_id, 'host_tool');
        this.#toolInput(
          event.data.message_id,
          event.data.call_id,
          event.data.name,
          event.data.arguments,
          out,
        );
        break;
      case 'action.resolved':
        this.#resolved(event, out);
        break;
      case 'final_response': {
        const { message_id: id, content } = event.data;
        if (!this.#streamed.has(id) && content) this.#text(id, content, out);
        this.#begin(id, out);
        this.#closeText(out);
        break;
      }
      case 'agent.warning': {
        // What the turn went on without (an MCP server's tools), a part of the answer of its own.
        const { message_id: id, code, message, source } = event.data;
        this.#begin(id, out);
        out.push({
          type: 'data-switchboard-warning',
          id: `warning-${event.seq}`,
          data: { code, message, source },
        });
        break;
      }
      case 'session.error': {
        this.#begin(undefined, out);
        this.#closeText(out);
        // The error stays in the answer as a part of its own (useChat's `error` is the chat's latest only).
        const { code, message } = event.data;
        out.push({ type: 'data-switchboard-error', id: `error-${event.seq}`, data: { code, message } });
        out.push({ type: 'error', errorText: `${code}: ${message}` });
        break;
      }
      case 'session.deleted':
        this.#begin(undefined, out);
        out.push({ type: 'error', errorText: 'session_deleted: the session was deleted' });
        break;
      case 'session.status_idle':
      case 'session.status_requires_action': {
        this.#begin(undefined, out);
        this.#closeText(out);
        if (!last) {
          out.push({ type: 'finish-step' });
          break;
        }
        const { usage, stop_reason, status, spent_usd } = event.data;
        const metadata: SwitchboardMessageMetadata = {
          stopReason: stop_reason,
          status,
          ...(usage && { usage }),
          ...(spent_usd !== undefined && { spentUsd: spent_usd }),
        };
        out.push({
          type: 'finish',
          finishReason: FINISH_REASONS[stop_reason] ?? 'other',
          messageMetadata: metadata,
        });
        break;
      }
      // user.message (the chat has it), messages.replaced (the chat cut its history itself): nothing.
    }
    return out;
  }

  #resolved(event: EventOf<'action.resolved'>, out: UIMessageChunk[]): void {
    const { action_id: id, type, status, resolution } = event.data;
    this.open.delete(id);
    this.#begin(event.data.message_id, out);
    this.#closeText(out);
    if (type === 'user_question') {
      out.push({ type: 'data-switchboard-request', id, data: { status, resolution } });
      return;
    }
    if (status !== 'resolved' || !resolution) {
      out.push({
        type: 'tool-output-error',
        toolCallId: id,
        errorText: `the request was ${status}`,
        dynamic: true,
      });
      return;
    }
    if (type === 'tool_approval') {
      const approved = resolution.decision === 'approve';
      out.push({
        type: 'tool-approval-response',
        approvalId: id,
        approved,
        ...(resolution.comment !== undefined && { reason: resolution.comment }),
      });
      if (!approved) out.push({ type: 'tool-output-denied', toolCallId: id });
      return;
    }
    const failed = resolution.error !== undefined || resolution.outcome === 'failed';
    out.push(
      failed
        ? {
            type: 'tool-output-error',
            toolCallId: id,
            errorText: String(resolution.error ?? resolution.result ?? 'failed'),
            dynamic: true,
          }
        : {
            type: 'tool-output-available',
            toolCallId: id,
            output: (type === 'host_tool' ? resolution.result : resolution.output) ?? null,
            dynamic: true,
          },
    );
  }
}
