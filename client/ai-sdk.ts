/**
 * `switchboard/ai-sdk`: a `ChatTransport` for the AI SDK, so an app written with `useChat` (or the
 * SDK's `Chat`) runs on Switchboard unchanged. It rides on the client (`switchboard/client`): one
 * WebSocket, the seq rule, reconnects and resumes. It imports only types from `ai`, so `ai` stays an
 * optional peer dependency and nothing of it is bundled twice.
 *
 * @example
 * ```tsx
 * import { useChat } from '@ai-sdk/react';
 * import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
 * import { SwitchboardChatTransport } from 'switchboard/ai-sdk';
 *
 * const transport = new SwitchboardChatTransport({ url: API_URL, wsUrl: WS_URL, token: getToken, agentId: 'support' });
 * const chat = useChat({ id: conversationId, transport, resume: true, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
 * ```
 *
 * @module
 */
import type { ChatRequestOptions, ChatTransport, FinishReason, UIMessage, UIMessageChunk } from 'ai';
import {
  type Accepted,
  type AttachmentInput,
  type ClientOptions,
  createClient,
  type HostContextInput,
  type SwitchboardClient,
} from './client.ts';
import type { EventOf, SwitchboardEvent } from './events.ts';
import type { Session } from './session.ts';

/**
 * Options of {@link SwitchboardChatTransport}: the client's options (`url`, `wsUrl`, `token`, …) or a
 * client to share, and what every message of the chat carries.
 *
 * @example
 * ```ts
 * const options: SwitchboardChatTransportOptions = { url: 'http://127.0.0.1:3000', agentId: 'demo' };
 * ```
 */
export interface SwitchboardChatTransportOptions extends Partial<ClientOptions> {
  /** A client to use instead of making one (the transport then leaves it open on `close()`). */
  client?: SwitchboardClient;
  /** The agent that serves a new chat (unless exactly one is registered). */
  agentId?: string;
  /** What the host shows and can do, sent with each message (docs/host-contract.md). */
  hostContext?: HostContextInput;
  /** The Switchboard session of a chat; the chat's id by default. */
  sessionId?: (chatId: string) => string;
}

/**
 * What a streamed answer's `finish` chunk puts in the message's `metadata`: the turn's usage (with
 * its cost), why it stopped, and what the session has spent.
 *
 * @example
 * ```ts
 * const cost = (message.metadata as SwitchboardMessageMetadata | undefined)?.usage?.costUsd;
 * ```
 */
export interface SwitchboardMessageMetadata {
  usage?: EventOf<'session.status_idle'>['data']['usage'];
  stopReason?: EventOf<'session.status_idle'>['data']['stop_reason'];
  status?: EventOf<'session.status_idle'>['data']['status'];
  spentUsd?: number;
}

const TURN_ENDS = new Set(['session.status_idle', 'session.status_requires_action']);

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

const isToolPart = (part: { type: string }): part is ToolPartView =>
  part.type === 'dynamic-tool' || part.type.startsWith('tool-');

/**
 * Turns one session's events into `UIMessageChunk`s, for one stream: a `start` first (with the
 * answer's message id when it is known), a step per run, text parts per message, tool parts for
 * backend tools, approvals, client tools and host calls, and `finish` at the turn's end.
 */
class ChunkMapper {
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
      case 'session.error':
        this.#begin(undefined, out);
        this.#closeText(out);
        out.push({ type: 'error', errorText: `${event.data.code}: ${event.data.message}` });
        break;
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

/** The open requests a chat's parts may answer: approvals, client tools and host calls, by id. */
type OpenRequests = Map<string, 'tool_approval' | 'client_tool' | 'host_tool'>;

/** The events of a session a stream reads: those queued, and a wait for the next. */
interface Source {
  queue: SwitchboardEvent[];
  /** Stops listening (and wakes a waiting read, which then finds the stream done). */
  stop(): void;
  wait(): Promise<void>;
}

/** Which events a stream follows and where it ends. */
interface Follow {
  /** Whether the event belongs to the stream (events of other runs are left out). */
  accepts(event: SwitchboardEvent): boolean;
  /** Whether the event ends the stream (a turn end of the last run it follows). */
  ends(event: SwitchboardEvent): boolean;
}

/**
 * A `ChatTransport` that runs a chat on Switchboard: the chat's id is the session's id, a message is
 * `POST /api/chat`, a regenerate is `mode: "regenerate"`, an edit (a message sent again with its
 * `messageId`) is `mode: "edit"`, an approval answered with `addToolApprovalResponse` (or a tool output
 * added with `addToolOutput`) answers the request, `stop()` cancels the turn, and `reconnectToStream`
 * replays the running turn from the stored event log: after a reload, or on another device. The
 * events become chunks as docs/hosts.md ("useChat (AI SDK)") lists.
 *
 * @example
 * ```ts
 * import { Chat } from '@ai-sdk/react';
 * import { lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
 *
 * const chat = new Chat({
 *   id: 'support-42',
 *   transport: new SwitchboardChatTransport({ url, wsUrl, token, agentId: 'support' }),
 *   sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
 * });
 * await chat.sendMessage({ text: 'Where is my order?' });
 * ```
 */
export class SwitchboardChatTransport<UI_MESSAGE extends UIMessage = UIMessage>
  implements ChatTransport<UI_MESSAGE>
{
  /** A reconnect replays the running turn from its start: the chat rebuilds the answer from it. */
  readonly resumeStreamIsReplay = true;
  /** The client the transport rides on. */
  readonly client: SwitchboardClient;
  readonly #options: SwitchboardChatTransportOptions;
  readonly #ownsClient: boolean;
  /** The Switchboard id of each user message this transport sent, by the chat's id of it. */
  readonly #messageIds = new Map<string, string>();
  readonly #open = new Map<string, OpenRequests>();
  /** Counts the streams of each chat: an aborted reconnect that a newer one replaced cancels nothing. */
  readonly #generation = new Map<string, number>();
  /** Ends each open stream: `close()` leaves none waiting on a client that is gone. */
  readonly #streams = new Set<() => void>();

  constructor(options: SwitchboardChatTransportOptions) {
    this.#options = options;
    this.#ownsClient = !options.client;
    if (options.client) this.client = options.client;
    else {
      if (!options.url) throw new Error('SwitchboardChatTransport: pass url (or client).');
      this.client = createClient({
        ...options,
        url: options.url,
        wsUrl: options.wsUrl ?? `${options.url.replace(/^http/, 'ws').replace(/\/+$/, '')}/ws`,
      });
    }
  }

  #session(chatId: string): Session {
    const id = this.#options.sessionId?.(chatId) ?? chatId;
    return this.client.session(id, { agentId: this.#options.agentId });
  }

  #openOf(chatId: string): OpenRequests {
    let open = this.#open.get(chatId);
    if (!open) {
      open = new Map();
      this.#open.set(chatId, open);
    }
    return open;
  }

  #nextGeneration(chatId: string): number {
    const generation = (this.#generation.get(chatId) ?? 0) + 1;
    this.#generation.set(chatId, generation);
    return generation;
  }

  /**
   * Sends the chat's new message, its regenerate, its edit, or its answers to the requests the turn
   * waits on (when the last message is the assistant's, with approvals responded or tool outputs
   * added), and streams the turn's chunks until it ends.
   *
   * @example
   * ```ts
   * const stream = await transport.sendMessages({ chatId: 's1', messages, trigger: 'submit-message', messageId: undefined, abortSignal: undefined });
   * ```
   */
  async sendMessages(
    options: {
      trigger: 'submit-message' | 'regenerate-message';
      chatId: string;
      messageId: string | undefined;
      messages: UI_MESSAGE[];
      abortSignal: AbortSignal | undefined;
    } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk>> {
    const { chatId, messages, trigger, messageId, abortSignal } = options;
    const session = this.#session(chatId);
    const generation = this.#nextGeneration(chatId);
    const last = messages.at(-1);
    const runIds = new Set<string>();
    let endRun: string | undefined;
    const follow: Follow = {
      accepts: (e) => e.type === 'session.deleted' || (e.run_id !== undefined && runIds.has(e.run_id)),
      ends: (e) => TURN_ENDS.has(e.type) && e.run_id === endRun,
    };
    // Listen before sending: the socket may deliver the run's first events before the answer arrives.
    const source = this.#subscribe(session, []);
    let answerOf: string | undefined;
    try {
      if (trigger === 'submit-message' && last?.role === 'assistant') {
        const runs = await this.#answer(session, chatId, last);
        for (const run of runs) runIds.add(run);
        endRun = runs.at(-1);
      } else {
        const accepted = await this.#submit(session, trigger, messageId, last, options.metadata);
        if (last?.role === 'user') this.#messageIds.set(last.id, accepted.message_id);
        runIds.add(accepted.run_id);
        endRun = accepted.run_id;
        answerOf = accepted.assistant_message_id;
      }
    } catch (error) {
      source.stop();
      throw error;
    }
    if (endRun === undefined) {
      source.stop();
      return new ReadableStream({ start: (c) => c.close() });
    }
    const mapper = new ChunkMapper(answerOf, this.#openOf(chatId));
    return this.#stream(source, follow, mapper, abortSignal, () => {
      if (this.#generation.get(chatId) === generation) void session.cancel().catch(() => {});
    });
  }

  /**
   * Replays the chat's running (or paused) turn from the stored log, from its user message on, and
   * follows it live until it ends; `null` when no turn runs or waits. A reload, a second tab or
   * another device sees the whole answer once.
   *
   * @example
   * ```ts
   * const stream = await transport.reconnectToStream({ chatId: 'support-42' });
   * ```
   */
  async reconnectToStream(
    options: { chatId: string; abortSignal?: AbortSignal } & ChatRequestOptions,
  ): Promise<ReadableStream<UIMessageChunk> | null> {
    const { chatId, abortSignal } = options;
    const session = this.#session(chatId);
    const generation = this.#nextGeneration(chatId);
    let info: { status?: string; last_run?: { id?: string } | null };
    try {
      info = await this.client.request('GET', `/api/sessions/${encodeURIComponent(session.id)}`);
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
    const runId = info.last_run?.id;
    if (info.status === 'idle' || !runId) return null;
    const from = await this.#turnStart(session);
    const source = this.#subscribe(session, session.delivered);
    const follow: Follow = {
      accepts: (e) => e.seq >= from,
      ends: (e) => TURN_ENDS.has(e.type) && e.run_id === runId,
    };
    return this.#stream(source, follow, new ChunkMapper(undefined, this.#openOf(chatId)), abortSignal, () => {
      // Aborted because a newer request of the same chat replaced this one (React's StrictMode
      // mounts twice): that is no stop, and the turn goes on.
      queueMicrotask(() => {
        if (this.#generation.get(chatId) === generation) void session.cancel().catch(() => {});
      });
    });
  }

  /**
   * The chat's messages as Switchboard stored them (`GET /api/sessions/{id}/messages`), as UI
   * messages with Switchboard's message ids: what `useChat({ messages })` starts from after a
   * reload, before `resume` replays the turn that still runs. Empty for a session that does not exist.
   *
   * @example
   * ```ts
   * const messages = await transport.loadMessages('support-42');
   * ```
   */
  async loadMessages(chatId: string): Promise<UI_MESSAGE[]> {
    const id = this.#options.sessionId?.(chatId) ?? chatId;
    const messages: UI_MESSAGE[] = [];
    let after: string | null | undefined;
    for (;;) {
      const query = after ? `?after=${encodeURIComponent(after)}&limit=500` : '?limit=500';
      let page: { messages: StoredMessage[]; has_more: boolean; next_after: string | null };
      try {
        page = await this.client.request('GET', `/api/sessions/${encodeURIComponent(id)}/messages${query}`);
      } catch (error) {
        if ((error as { status?: number }).status === 404) return [];
        throw error;
      }
      for (const message of page.messages) messages.push(uiMessageOf(message) as UI_MESSAGE);
      if (!page.has_more || !page.next_after) return messages;
      after = page.next_after;
    }
  }

  /**
   * Ends the open streams and closes the client the transport made (a client passed in stays open).
   *
   * @example
   * ```ts
   * window.addEventListener('pagehide', () => transport.close());
   * ```
   */
  close(): void {
    for (const end of [...this.#streams]) end();
    if (this.#ownsClient) this.client.close();
  }

  /** Sends a new message, a regenerate or an edit. */
  async #submit(
    session: Session,
    trigger: 'submit-message' | 'regenerate-message',
    messageId: string | undefined,
    last: UI_MESSAGE | undefined,
    metadata: unknown,
  ): Promise<Accepted> {
    if (trigger === 'regenerate-message') {
      const from =
        messageId ??
        (
          await this.client.request<{ last_run?: { assistant_message_id?: string } | null }>(
            'GET',
            `/api/sessions/${encodeURIComponent(session.id)}`,
          )
        ).last_run?.assistant_message_id;
      return session.regenerate(from);
    }
    const { text, attachments } = contentOf(last);
    const send = {
      hostContext: this.#options.hostContext,
      ...(attachments.length > 0 && { attachments }),
      ...(isRecord(metadata) && { metadata }),
    };
    if (messageId !== undefined && last?.id === messageId)
      return session.edit(this.#messageIds.get(messageId) ?? messageId, text, send);
    return session.send(text, send);
  }

  /**
   * Answers the open requests that the last step of the assistant message answers: approvals
   * responded, client tools and host calls with an output. Returns the runs that take the answers.
   */
  async #answer(session: Session, chatId: string, message: UI_MESSAGE): Promise<string[]> {
    const open = this.#openOf(chatId);
    const start = message.parts.findLastIndex((p) => p.type === 'step-start');
    const runs: string[] = [];
    for (const part of message.parts.slice(start + 1)) {
      if (!isToolPart(part)) continue;
      const id = part.toolCallId;
      if (part.state === 'approval-responded' && part.approval) {
        if (open.has(part.approval.id) || !this.#knows(chatId)) {
          const comment = part.approval.reason === undefined ? {} : { comment: part.approval.reason };
          const answer = part.approval.approved
            ? await session.approve(part.approval.id, comment)
            : await session.deny(part.approval.id, comment);
          runs.push(answer.run_id);
        }
      } else if (part.state === 'output-available' || part.state === 'output-error') {
        const kind = open.get(id);
        const failed = part.state === 'output-error';
        if (kind === 'client_tool') {
          const answer = await session.answerClientTool(
            id,
            failed ? { error: part.errorText ?? 'failed' } : { output: part.output ?? null },
          );
          runs.push(answer.run_id);
        } else if (kind === 'host_tool') {
          const accepted = await session.continueToolCall(
            id,
            failed ? (part.errorText ?? 'failed') : part.output,
            failed ? { outcome: 'failed' } : {},
          );
          runs.push(accepted.run_id);
        }
      }
    }
    return runs;
  }

  /** Whether this transport has followed the chat (else its open requests are not known here). */
  #knows(chatId: string): boolean {
    return (this.#open.get(chatId)?.size ?? 0) > 0;
  }

  /** The seq of the newest turn's user message (a steering message is part of a turn, not one). */
  async #turnStart(session: Session): Promise<number> {
    let start = 1;
    let after = 0;
    for (;;) {
      const page = await session.readEvents({ after, limit: 1000 });
      for (const event of page.events)
        if (event.type === 'user.message' && !event.data.steered_into) start = event.seq;
      if (!page.has_more || page.events.length === 0) return start;
      after = page.events.at(-1)?.seq ?? after;
    }
  }

  /** The session's events from now on, after `earlier` (those already delivered), in seq order. */
  #subscribe(session: Session, earlier: readonly SwitchboardEvent[]): Source {
    const queue = [...earlier];
    let wake: (() => void) | undefined;
    const unsubscribe = session.on('*', (event) => {
      queue.push(event);
      wake?.();
    });
    return {
      queue,
      stop: () => {
        unsubscribe();
        wake?.();
      },
      wait: () => new Promise<void>((resolve) => (wake = resolve)),
    };
  }

  /** The chunks of the followed events, until the end event; an abort stops the turn. */
  #stream(
    source: Source,
    follow: Follow,
    mapper: ChunkMapper,
    abortSignal: AbortSignal | undefined,
    cancelTurn: () => void,
  ): ReadableStream<UIMessageChunk> {
    let done = false;
    const finish = () => {
      done = true;
      this.#streams.delete(finish);
      source.stop();
    };
    this.#streams.add(finish);
    const onAbort = () => {
      if (done) return;
      finish();
      cancelTurn();
    };
    abortSignal?.addEventListener('abort', onAbort, { once: true });
    return new ReadableStream<UIMessageChunk>({
      pull: async (controller) => {
        for (;;) {
          if (done) {
            controller.close();
            return;
          }
          const event = source.queue.shift();
          if (!event) {
            await source.wait();
            continue;
          }
          if (!follow.accepts(event)) continue;
          const last = follow.ends(event);
          const chunks = mapper.map(event, last);
          for (const chunk of chunks) controller.enqueue(chunk);
          if (last || event.type === 'session.deleted') {
            finish();
            abortSignal?.removeEventListener('abort', onAbort);
            controller.close();
            return;
          }
          if (chunks.length > 0) return;
        }
      },
      cancel: () => {
        finish();
        abortSignal?.removeEventListener('abort', onAbort);
      },
    });
  }
}

/** A message of `GET /api/sessions/{id}/messages`, as far as the transport reads it. */
interface StoredMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string | null;
  tool_calls?: { id: string; name: string; args?: unknown; result?: unknown; ok?: boolean }[];
  usage?: SwitchboardMessageMetadata['usage'];
}

/** A stored message as a UI message: its tool calls (backend tools) and its text. */
function uiMessageOf(message: StoredMessage): UIMessage {
  const parts: UIMessage['parts'] = [];
  for (const call of message.tool_calls ?? []) {
    const base = {
      type: 'dynamic-tool' as const,
      toolName: call.name,
      toolCallId: call.id,
      input: call.args ?? {},
    };
    parts.push(
      call.ok === false
        ? { ...base, state: 'output-error', errorText: String(call.result ?? 'the tool failed') }
        : { ...base, state: 'output-available', output: call.result ?? null },
    );
  }
  if (message.content) parts.push({ type: 'text', text: message.content, state: 'done' });
  return {
    id: message.id,
    role: message.role,
    parts,
    ...(message.usage && { metadata: { usage: message.usage } }),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The text of a user message, and its files as attachments (data URLs inline, other URLs by reference). */
function contentOf(message: UIMessage | undefined): { text: string; attachments: AttachmentInput[] } {
  const texts: string[] = [];
  const attachments: AttachmentInput[] = [];
  for (const part of message?.parts ?? []) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'file') {
      const kind = part.mediaType.startsWith('image/') ? 'image' : 'document';
      attachments.push(part.url.startsWith('data:') ? { kind, data_uri: part.url } : { kind, url: part.url });
    }
  }
  return { text: texts.join('\n'), attachments };
}
