import {
  type Accepted,
  ArgsValidationError,
  type ClientToolHandler,
  type ClientToolHandlers,
  type FileRecord,
  type HostActionHandlers,
  type HostContextInput,
  type Session,
  type SessionOptions,
  SwitchboardApiError,
  type SwitchboardClient,
  type SwitchboardEvent,
  type UploadBody,
} from '../client/index.ts';
import { applyEvent, type Conversation, emptyConversation, messagesOf, withFiles } from './messages.ts';
import type {
  ChatState,
  ChatStatus,
  FilePart,
  HostActionOption,
  PendingRequest,
  SwitchboardChat,
} from './types.ts';

/** What a render reads: the state, and the session it comes from. */
export type ChatSnapshot = ChatState & { session: Session | undefined };

/** What the hook hands the store on every render. */
export interface ChatConfig {
  agentId?: string;
  hostContext?: HostContextInput;
  actions?: Record<string, HostActionOption>;
  clientTools?: Record<string, ClientToolHandler>;
}

/** The requests a host makes, bound to one store: their identity never changes. */
export type ChatCommands = Pick<
  SwitchboardChat,
  'send' | 'stop' | 'regenerate' | 'edit' | 'continueTurn' | 'rate' | 'upload' | 'resume'
>;

/** The page's events that mean "check the connection now", where there is a page. */
interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

const stores = new WeakMap<SwitchboardClient, Map<string, ChatStore>>();

/**
 * The store of one session of one client, shared by every hook that shows it: made on first use,
 * started by the first hook that mounts, disposed once the last one has unmounted.
 *
 * @example
 * ```ts
 * const store = chatStore(client, 'support-42', false);
 * ```
 */
export function chatStore(client: SwitchboardClient, sessionId: string, ownsClient: boolean): ChatStore {
  let byId = stores.get(client);
  if (!byId) {
    byId = new Map();
    stores.set(client, byId);
  }
  let store = byId.get(sessionId);
  if (!store || store.disposed) {
    store = new ChatStore(client, sessionId, ownsClient);
    byId.set(sessionId, store);
  }
  return store;
}

/**
 * One conversation as an external store for `useSyncExternalStore`: the session's events folded into
 * an immutable snapshot, replaced (never changed) on each event, so that a concurrent render reads
 * one consistent state. Making it does nothing; the first {@link retain} follows the session, and
 * the last {@link release} stops, a task later, so that StrictMode's unmount and mount again reuse
 * the same session and socket.
 *
 * @example
 * ```ts
 * const store = chatStore(client, 'support-42', false);
 * store.retain();
 * const unsubscribe = store.subscribe(() => console.log(store.getSnapshot().status));
 * ```
 */
export class ChatStore {
  readonly client: SwitchboardClient;
  readonly sessionId: string;
  readonly #ownsClient: boolean;
  #session: Session | undefined;
  #refs = 0;
  #disposeTimer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;
  readonly #listeners = new Set<() => void>();
  readonly #stops: (() => void)[] = [];
  #conversation: Conversation = emptyConversation();
  readonly #ratings = new Map<string, 'up' | 'down' | null>();
  readonly #ratedHere = new Set<string>();
  #storedRead = false;
  /** The requests that start a turn, until the server has taken (or refused) them. */
  readonly #starting = new Set<Promise<Accepted>>();
  readonly #files = new Map<string, FilePart[]>();
  #status: ChatStatus = 'idle';
  /** The last turn ended stopped at `max_turns` or `budget_reached`, and nothing came after it. */
  #canContinue = false;
  #error: Error | undefined;
  #snapshot: ChatSnapshot;
  /** Handlers by name, changed in place: the session looks them up when it performs a call. */
  readonly #hostActions: HostActionHandlers = {};
  readonly #clientTools: ClientToolHandlers = {};
  readonly #sessionOptions: SessionOptions = {
    hostActions: this.#hostActions,
    clientTools: this.#clientTools,
  };
  #agentId: string | undefined;
  #hostContext: HostContextInput | undefined;

  constructor(client: SwitchboardClient, sessionId: string, ownsClient: boolean) {
    this.client = client;
    this.sessionId = sessionId;
    this.#ownsClient = ownsClient;
    this.#snapshot = this.#compute();
  }

  /** Whether the store stopped following its session (a new one is made for the next mount). */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Listens to changes of the snapshot; for `useSyncExternalStore`. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current snapshot: the same object until something changes. */
  readonly getSnapshot = (): ChatSnapshot => this.#snapshot;

  /** Takes the options of the latest render: handlers, the agent, the host context. */
  configure(config: ChatConfig): void {
    this.#agentId = config.agentId;
    const before = `${Object.keys(this.#hostActions)}|${Object.keys(this.#clientTools)}`;
    const declared = [];
    for (const key of Object.keys(this.#hostActions)) delete this.#hostActions[key];
    for (const [name, option] of Object.entries(config.actions ?? {})) {
      if (typeof option === 'function') this.#hostActions[name] = option;
      else {
        this.#hostActions[name] = option.handler;
        declared.push({
          name,
          parameters: option.parameters,
          ...(option.description !== undefined && { description: option.description }),
        });
      }
    }
    for (const key of Object.keys(this.#clientTools)) delete this.#clientTools[key];
    Object.assign(this.#clientTools, config.clientTools);
    const own = config.hostContext?.actions ?? [];
    const added = declared.filter((d) => !own.some((a) => a.name === d.name));
    this.#hostContext =
      added.length === 0 ? config.hostContext : { ...config.hostContext, actions: [...own, ...added] };
    // The session sends it with every join (its options are read when they are used).
    this.#sessionOptions.agentId = config.agentId;
    this.#sessionOptions.hostContext = this.#hostContext;
    // Which requests the hook answers by itself depends on the handlers it has.
    if (before !== `${Object.keys(this.#hostActions)}|${Object.keys(this.#clientTools)}`) this.#publish();
  }

  /** A hook mounted: the first one starts following the session; a pending stop is called off. */
  retain(): void {
    if (this.#disposed) return;
    this.#refs += 1;
    if (this.#disposeTimer !== undefined) clearTimeout(this.#disposeTimer);
    this.#disposeTimer = undefined;
    if (!this.#session) this.#start();
  }

  /**
   * A hook unmounted. When it was the last, the store stops a task later: StrictMode unmounts and
   * mounts again at once, and the same session and socket carry on.
   */
  release(): void {
    this.#refs -= 1;
    if (this.#refs > 0 || this.#disposed) return;
    if (this.#disposeTimer !== undefined) clearTimeout(this.#disposeTimer);
    this.#disposeTimer = setTimeout(() => {
      this.#disposeTimer = undefined;
      if (this.#refs <= 0) this.#dispose();
    }, 0);
  }

  /** The requests, bound to this store. */
  readonly commands: ChatCommands = {
    send: (content, options = {}) => {
      const files = options.files ?? [];
      return this.#turn(
        (session) =>
          session.send(content, {
            ...options,
            agentId: options.agentId ?? this.#agentId,
            hostContext: options.hostContext ?? this.#hostContext,
          }),
        (accepted) => {
          const parts = files.filter((f): f is FileRecord => typeof f !== 'string').map(filePart);
          if (parts.length === 0) return;
          this.#files.set(accepted.message_id, parts);
          this.#conversation = withFiles(this.#conversation, accepted.message_id, parts);
        },
      );
    },
    stop: async () => {
      try {
        // A Stop right after a send waits for the send to be taken: before that there is nothing
        // to cancel (a new session does not exist yet), after it the turn is there to stop.
        await Promise.allSettled(this.#starting);
        await this.#live().cancel();
      } catch (error) {
        // Nothing runs any more: what stop asked for is so.
        if (error instanceof SwitchboardApiError && error.code === 'nothing_to_cancel') return;
        this.#fail(error, false);
        throw error;
      }
    },
    regenerate: (messageId) => this.#turn((session) => session.regenerate(messageId)),
    continueTurn: () => this.#turn((session) => session.continueTurn()),
    edit: (messageId, content, options = {}) => {
      // The files the edited message keeps: by record, or by the id of one it was sent with.
      const had = this.#conversation.drafts.get(messageId)?.message.parts ?? [];
      const parts = (options.files ?? []).flatMap((file): FilePart[] => {
        if (typeof file !== 'string' && 'size' in file) return [filePart(file as FileRecord)];
        const id = typeof file === 'string' ? file : file.id;
        const known = had.find((p): p is FilePart => p.type === 'file' && p.id === id);
        if (known) return [known];
        if (typeof file === 'string') return [];
        return [{ type: 'file', id, name: file.name ?? id, mediaType: file.media_type, size: null }];
      });
      return this.#turn(
        (session) =>
          session.edit(messageId, content, {
            ...options,
            hostContext: options.hostContext ?? this.#hostContext,
          }),
        (accepted) => {
          if (parts.length === 0) return;
          this.#files.set(accepted.message_id, parts);
          this.#conversation = withFiles(this.#conversation, accepted.message_id, parts);
        },
      );
    },
    rate: async (messageId, rating, options = {}) => {
      const had = this.#ratings.get(messageId);
      this.#ratedHere.add(messageId);
      this.#ratings.set(messageId, rating);
      this.#publish();
      try {
        await this.#live().feedback(messageId, rating, options);
      } catch (error) {
        if (had === undefined) this.#ratings.delete(messageId);
        else this.#ratings.set(messageId, had);
        this.#fail(error, false);
        throw error;
      }
    },
    upload: (body: UploadBody, options) => this.#track(this.client.upload(body, options)),
    resume: () => this.client.resume(),
  };

  #live(): Session {
    if (!this.#session) throw new Error('useSwitchboardChat: the hook is not mounted yet.');
    return this.#session;
  }

  /** A request that starts a turn: the status says streaming at once, error if it is refused. */
  async #turn(
    request: (session: Session) => Promise<Accepted>,
    accepted?: (answer: Accepted) => void,
  ): Promise<Accepted> {
    const session = this.#live();
    this.#status = 'streaming';
    this.#error = undefined;
    this.#publish();
    const sent = request(session);
    this.#starting.add(sent);
    try {
      const answer = await sent;
      accepted?.(answer);
      this.#publish();
      return answer;
    } catch (error) {
      this.#fail(error, true);
      throw error;
    } finally {
      this.#starting.delete(sent);
    }
  }

  /** A request whose failure the state shows too. */
  async #track<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (error) {
      this.#fail(error, false);
      throw error;
    }
  }

  #fail(error: unknown, turn: boolean): void {
    // Edited arguments that do not fit are the form's to show, not the conversation's.
    if (error instanceof ArgsValidationError) return;
    this.#error = error instanceof Error ? error : new Error(String(error));
    if (turn) this.#status = 'error';
    this.#publish();
  }

  #start(): void {
    const session = this.client.session(this.sessionId, this.#sessionOptions);
    this.#session = session;
    // What the session delivered before (a client that followed it already), then what comes.
    for (const event of session.delivered) this.#fold(event);
    if (session.delivered.length > 0) this.#loadStored();
    this.#stops.push(
      session.on('*', (event) => {
        this.#fold(event);
        this.#loadStored();
        this.#publish();
      }),
      this.client.onStatus(() => this.#publish()),
      this.client.onError((error) => this.#fail(error, false)),
    );
    const resume = () => {
      const page = (globalThis as { document?: { visibilityState?: string } }).document;
      if (page?.visibilityState !== 'hidden') this.client.resume();
    };
    const targets: [EventTargetLike | undefined, string][] = [
      [(globalThis as { document?: EventTargetLike }).document, 'visibilitychange'],
      [(globalThis as { window?: EventTargetLike }).window, 'online'],
    ];
    for (const [target, type] of targets) {
      if (typeof target?.addEventListener !== 'function') continue;
      target.addEventListener(type, resume);
      this.#stops.push(() => target.removeEventListener(type, resume));
    }
    this.#publish();
  }

  #dispose(): void {
    this.#disposed = true;
    for (const stop of this.#stops.splice(0)) stop();
    this.#session?.close();
    if (this.#ownsClient) this.client.close();
    const byId = stores.get(this.client);
    if (byId?.get(this.sessionId) === this) byId.delete(this.sessionId);
  }

  /**
   * The ratings this user gave and the files each user message was sent with, from the stored
   * messages (the event log holds neither): read once, when the session is known to exist (its first
   * event), so a new conversation asks nothing.
   */
  #loadStored(): void {
    if (this.#storedRead) return;
    this.#storedRead = true;
    void this.#readStored();
  }

  async #readStored(): Promise<void> {
    const base = `/api/sessions/${encodeURIComponent(this.sessionId)}/messages?limit=500`;
    try {
      for (let after: string | null = null; ; ) {
        const page: {
          messages: {
            id: string;
            role: string;
            feedback?: { rating?: 'up' | 'down' | null };
            attachments?: { file_id?: string; name?: string; media_type?: string }[];
          }[];
          has_more: boolean;
          next_after: string | null;
        } = await this.client.request('GET', after ? `${base}&after=${encodeURIComponent(after)}` : base);
        for (const message of page.messages) {
          const rating = message.feedback?.rating;
          if (rating && !this.#ratedHere.has(message.id)) this.#ratings.set(message.id, rating);
          const files = message.role === 'user' ? storedFileParts(message.attachments ?? []) : [];
          if (files.length > 0 && !this.#files.has(message.id)) {
            this.#files.set(message.id, files);
            this.#conversation = withFiles(this.#conversation, message.id, files);
          }
        }
        if (!page.has_more || !page.next_after) break;
        after = page.next_after;
      }
      this.#publish();
    } catch (error) {
      // A session with no message yet has nothing rated.
      if (error instanceof SwitchboardApiError && error.code === 'session_not_found') return;
      if (!this.#disposed) this.#fail(error, false);
    }
  }

  /** Folds one event into the conversation and the status. */
  #fold(event: SwitchboardEvent): void {
    this.#conversation = applyEvent(this.#conversation, event);
    if (event.type === 'user.message') {
      const files = this.#files.get(event.data.message_id);
      if (files) this.#conversation = withFiles(this.#conversation, event.data.message_id, files);
    }
    switch (event.type) {
      case 'session.status_running':
        this.#status = 'streaming';
        this.#canContinue = false;
        this.#error = undefined;
        break;
      case 'session.status_requires_action':
        this.#status = 'requires_action';
        this.#canContinue = false;
        break;
      case 'session.status_idle':
        this.#status = event.data.status === 'error' ? 'error' : 'idle';
        this.#canContinue =
          event.data.status === 'incomplete' &&
          (event.data.stop_reason === 'max_turns' || event.data.stop_reason === 'budget_reached');
        break;
      case 'session.error':
        // A turn's error is its message's (`errors`); only one that names no run is the hook's own.
        if (event.run_id) break;
        this.#error = Object.assign(new Error(event.data.message), {
          code: event.data.code,
          status: event.data.status,
        });
        break;
    }
  }

  #publish(): void {
    this.#snapshot = this.#compute();
    for (const listener of [...this.#listeners]) listener();
  }

  #compute(): ChatSnapshot {
    return {
      messages: messagesOf(this.#conversation, this.#ratings),
      status: this.#status,
      canContinue: this.#canContinue,
      connection: this.client.status,
      error: this.#error,
      requests: this.#requests(),
      lastSeq: this.#session?.lastSeq ?? 0,
      session: this.#session,
    };
  }

  /** What the turn waits on that no handler of the hook (or of the client) answers. */
  #requests(): PendingRequest[] {
    const session = this.#session;
    if (!session) return [];
    const handles = (kind: 'hostActions' | 'clientTools', name: string) =>
      Boolean(
        (kind === 'hostActions' ? this.#hostActions[name] : this.#clientTools[name]) ??
          this.client.options[kind]?.[name],
      );
    const requests: PendingRequest[] = [];
    for (const action of session.pendingActions) {
      const { id, title, toolName } = action;
      if (action.type === 'tool_approval')
        requests.push({
          type: 'tool_approval',
          id,
          title,
          toolName,
          args: action.args,
          argsSchema: action.argsSchema,
          action,
          approve: (args, options = {}) =>
            this.#track(session.approve(id, { ...options, ...(args !== undefined && { args }) })),
          deny: (options = {}) => this.#track(session.deny(id, options)),
        });
      else if (action.type === 'user_question')
        requests.push({
          type: 'user_question',
          id,
          title,
          questions: action.questions ?? [],
          action,
          answer: (answers, options = {}) => this.#track(session.answerQuestion(id, answers, options)),
        });
      else if (action.type === 'client_tool' && !handles('clientTools', toolName ?? ''))
        requests.push({
          type: 'client_tool',
          id,
          title,
          toolName,
          args: action.args,
          action,
          answer: (output) => this.#track(session.answerClientTool(id, { output: output ?? null })),
          fail: (error) => this.#track(session.answerClientTool(id, { error })),
        });
    }
    const call = session.pendingToolCall;
    if (call && !handles('hostActions', call.tool_name)) {
      const { call_id: id, tool_name: toolName } = call;
      requests.push({
        type: 'host_tool',
        id,
        toolName,
        args: call.arguments,
        answer: (result) => this.#turn(() => session.continueToolCall(id, result)),
        fail: (reason) => this.#turn(() => session.continueToolCall(id, reason, { outcome: 'failed' })),
      });
    }
    return requests;
  }
}

/**
 * The files a stored user message names (`attachments[].file_id`), as parts: by the name and type its
 * attachment gave (the client gives them), else by the file's id.
 */
const storedFileParts = (
  attachments: { file_id?: string; name?: string; media_type?: string }[],
): FilePart[] =>
  attachments.flatMap((a) =>
    a.file_id
      ? [
          {
            type: 'file',
            id: a.file_id,
            name: a.name ?? a.file_id,
            mediaType: a.media_type ?? null,
            size: null,
          },
        ]
      : [],
  );

/** A file the user sent, as a part of the message it went with. */
const filePart = (file: FileRecord): FilePart => ({
  type: 'file',
  id: file.id,
  name: file.name,
  mediaType: file.media_type,
  size: file.size,
});
