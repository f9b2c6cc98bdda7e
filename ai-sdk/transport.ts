import type { ChatRequestOptions, ChatTransport, FileUIPart, UIMessage, UIMessageChunk } from 'ai';
import {
  type Accepted,
  createClient,
  type FileRecord,
  type Session,
  type SwitchboardClient,
  type SwitchboardEvent,
} from '../client/index.ts';
import { ChunkMapper, isToolPart, type OpenRequests, TURN_ENDS } from './chunks.ts';
import {
  contentOf,
  filePartOf,
  type HostCall,
  isRecord,
  type LoggedError,
  type StoredMessage,
  uiMessageOf,
  withTurnErrors,
} from './messages.ts';
import type { SwitchboardChatTransportOptions } from './options.ts';
import { chunkStream, type Follow, subscribe } from './stream.ts';

/**
 * A `ChatTransport` that runs a chat on Switchboard: the chat's id is the session's id, a message is
 * `POST /api/chat` (an uploaded file goes with it as a file part from {@link filePart}), a regenerate
 * is `mode: "regenerate"`, an edit (a message sent again with its `messageId`) is `mode: "edit"`, an
 * approval answered with `addToolApprovalResponse` (or a tool output added with `addToolOutput`)
 * answers the request, `stop()` cancels the turn, and `reconnectToStream`
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
    const source = subscribe(session, []);
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
    return chunkStream(source, follow, mapper, this.#streams, abortSignal, () => {
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
    const source = subscribe(session, session.delivered);
    const follow: Follow = {
      accepts: (e) => e.seq >= from,
      ends: (e) => TURN_ENDS.has(e.type) && e.run_id === runId,
    };
    return chunkStream(
      source,
      follow,
      new ChunkMapper(undefined, this.#openOf(chatId)),
      this.#streams,
      abortSignal,
      () => {
        // Aborted because a newer request of the same chat replaced this one (React's StrictMode
        // mounts twice): that is no stop, and the turn goes on.
        queueMicrotask(() => {
          if (this.#generation.get(chatId) === generation) void session.cancel().catch(() => {});
        });
      },
    );
  }

  /**
   * The chat's messages as Switchboard stored them (`GET /api/sessions/{id}/messages`), as UI
   * messages with Switchboard's message ids: what `useChat({ messages })` starts from after a
   * reload, before `resume` replays the turn that still runs. Each has the files sent with it, its
   * tool calls (the host's too, read from the log), its text, its requests where they are now (an
   * open one can be answered) and its rating (`metadata.rating`). Empty for a session that does not
   * exist.
   *
   * @example
   * ```ts
   * const messages = await transport.loadMessages('support-42');
   * ```
   */
  async loadMessages(chatId: string): Promise<UI_MESSAGE[]> {
    const id = this.#options.sessionId?.(chatId) ?? chatId;
    const stored: StoredMessage[] = [];
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
      // A message too large for a page is listed by reference: read it whole.
      for (const listed of page.messages)
        stored.push(
          listed.content_ref ? await this.client.request<StoredMessage>('GET', listed.content_ref) : listed,
        );
      if (!page.has_more || !page.next_after) break;
      after = page.next_after;
    }
    const log = stored.length > 0 ? await this.#fromLog(id) : { calls: new Map(), errors: [] };
    const open = this.#openOf(chatId);
    const apiUrl = this.client.options.url;
    const messages = stored.map(
      (message) => uiMessageOf(message, { apiUrl, open, hostCalls: log.calls.get(message.id) }) as UI_MESSAGE,
    );
    return withTurnErrors(messages, log.errors);
  }

  /**
   * An uploaded file (`client.upload`'s record) as the file part of a message to send: its id goes
   * to Switchboard as the attachment's `file_id`, and the part shows its name.
   *
   * @example
   * ```ts
   * const part = transport.filePart(await transport.client.upload(input.files[0]));
   * await sendMessage({ text: 'What is in it?', files: [part] });
   * ```
   */
  filePart(file: Pick<FileRecord, 'id' | 'name' | 'media_type'>): FileUIPart {
    return filePartOf(file, this.client.options.url);
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
    const { text, attachments, files } = contentOf(last);
    const context = this.#options.hostContext;
    const send = {
      hostContext: typeof context === 'function' ? context() : context,
      ...(attachments.length > 0 && { attachments }),
      ...(files.length > 0 && { files }),
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

  /**
   * What the log adds to the stored messages: each answer's host tool calls (`tool_call`, settled by
   * `action.resolved`), and each failed turn's errors (`session.error`), by the message they go
   * under: the answer its run wrote, else the user message that started the run.
   */
  async #fromLog(sessionId: string): Promise<{ calls: Map<string, HostCall[]>; errors: LoggedError[] }> {
    const calls = new Map<string, HostCall[]>();
    const byId = new Map<string, HostCall>();
    const errors: LoggedError[] = [];
    // The messages each run wrote, as the log names them: the user's first, then its answer's.
    const written = new Map<string, { user?: string; answer?: string }>();
    const path = `/api/sessions/${encodeURIComponent(sessionId)}/events`;
    for (let after = 0; ; ) {
      const page = await this.client.request<{ events: SwitchboardEvent[]; has_more: boolean }>(
        'GET',
        `${path}?after=${after}&limit=1000`,
      );
      for (const listed of page.events) {
        const run = listed.run_id ?? '';
        const messageId = (listed.data as { message_id?: unknown } | undefined)?.message_id;
        if (typeof messageId === 'string' && run) {
          const seen = written.get(run) ?? {};
          if (listed.type === 'user.message') seen.user ??= messageId;
          else seen.answer ??= messageId;
          written.set(run, seen);
        }
        if (listed.type === 'session.error') {
          const { code, message } = listed.data;
          const seen = written.get(run);
          errors.push({ seq: listed.seq, answer: seen?.answer, user: seen?.user, data: { code, message } });
          continue;
        }
        if (listed.type !== 'tool_call' && listed.type !== 'action.resolved') continue;
        // An event too large for a page is read whole.
        const event =
          listed.truncated && listed.href
            ? await this.client.request<SwitchboardEvent>('GET', listed.href)
            : listed;
        if (event.type === 'tool_call') {
          const { message_id, call_id, name, arguments: args } = event.data;
          const call: HostCall = { id: call_id, name, args, status: 'pending' };
          byId.set(call_id, call);
          calls.set(message_id, [...(calls.get(message_id) ?? []), call]);
        } else if (event.type === 'action.resolved' && event.data.type === 'host_tool') {
          const call = byId.get(event.data.action_id);
          if (call) {
            call.status = event.data.status;
            if (event.data.resolution) call.resolution = event.data.resolution;
          }
        }
      }
      if (!page.has_more || page.events.length === 0) return { calls, errors };
      after = page.events.at(-1)?.seq ?? after;
    }
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
}
