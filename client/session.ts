import type { PendingAction, RememberedTools, ResolveRequest } from '../lib/contract/index.ts';
import type { ResolveAccepted } from '../lib/documents/responses.ts';

export type { ResolveAccepted };

import {
  type Accepted,
  type ClientToolHandlers,
  chatBody,
  type EventsPage,
  type HostActionHandlers,
  type HostContextInput,
  requestId,
  type SendOptions,
  type SwitchboardClient,
} from './client.ts';
import { ArgsValidationError, ClosedError, TimeoutError } from './errors.ts';
import type { EventOf, EventType, JoinedFrame, PendingToolCall, SwitchboardEvent } from './events.ts';
import { checkJsonSchema, type JsonSchema } from './json-schema.ts';
import { abortController, delay } from './transport.ts';

/**
 * Options of {@link SwitchboardClient.session}.
 *
 * @example
 * ```ts
 * const session = client.session('s1', { agentId: 'support', afterSeq: Number(localStorage.lastSeq ?? 0) });
 * ```
 */
export interface SessionOptions {
  /** The agent, for the session's first message (each `send` may name it too). */
  agentId?: string;
  /** The last seq the host already applied (kept across app restarts): events after it are delivered. 0 by default: the whole log. */
  afterSeq?: number;
  /** Sent with the join (stored on the session for the messages that follow). */
  hostContext?: HostContextInput;
  /** Host action handlers of this session, over the client's. */
  hostActions?: HostActionHandlers;
  /** Client tool handlers of this session, over the client's. */
  clientTools?: ClientToolHandlers;
}

type Listener = (event: SwitchboardEvent) => void;

/** The turn-ending event types. */
const TURN_ENDS = new Set(['session.status_idle', 'session.status_requires_action']);

/**
 * One session as a host follows it: its events, applied by the host rule (in seq order, a repeat
 * dropped, an early one held until the ones before it arrive, a gap that stays open read over HTTP),
 * and every request a host makes of it. Get one with {@link SwitchboardClient.session}.
 *
 * @example
 * ```ts
 * const session = client.session('support-42', { agentId: 'demo' });
 * for await (const event of session.events()) {
 *   if (event.type === 'agent.message.delta') process.stdout.write(event.data.text);
 *   if (event.type === 'session.status_idle') break;
 * }
 * ```
 */
export class Session {
  readonly id: string;
  readonly #client: SwitchboardClient;
  readonly #options: SessionOptions;
  #lastSeq: number;
  readonly #held = new Map<number, SwitchboardEvent>();
  #gapTimer: unknown;
  /** Until a join's replay is through this seq, pending host calls wait (they may be answered further on). */
  #catchUpTo = Number.POSITIVE_INFINITY;
  readonly #listeners = new Map<string, Set<Listener>>();
  readonly #delivered: SwitchboardEvent[] = [];
  readonly #pending = new Map<string, PendingAction>();
  #pendingCall: PendingToolCall | undefined;
  #callReady = false;
  readonly #performed = new Set<string>();
  #lastAnswerId: string | undefined;
  /** Deliveries run one after the other (a truncated event is read whole first). */
  #delivery: Promise<void> = Promise.resolve();
  #polling = false;
  /** A (re)connection's join was sent and no `assistant:joined` has answered it yet. */
  #awaitingJoin = false;
  #closed = false;
  /** Wakes the open `events()` iterators, and ends the pending `next()` waits, when the session closes. */
  readonly #onClose = new Set<() => void>();
  /** Aborts the session's reads of the log in flight (its long poll above all) when it closes. */
  readonly #reads = abortController();

  constructor(client: SwitchboardClient, id: string, options: SessionOptions) {
    this.#client = client;
    this.id = id;
    this.#options = options;
    this.#lastSeq = options.afterSeq ?? 0;
  }

  /**
   * The highest seq applied: every event up to it was delivered, once, in order. Keep it to resume
   * after a restart (`afterSeq`).
   *
   * @example
   * ```ts
   * session.on('*', () => localStorage.setItem('lastSeq', String(session.lastSeq)));
   * ```
   */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /**
   * The approvals, questions and client tools the session waits on, as `action.required` announced
   * them and until `action.resolved` closes them.
   *
   * @example
   * ```ts
   * for (const action of session.pendingActions) if (action.type === 'tool_approval') showApproval(action);
   * ```
   */
  get pendingActions(): PendingAction[] {
    return [...this.#pending.values()];
  }

  /**
   * The host tool call the session's newest turn ended waiting on (`final_response.pending_tool_call`),
   * until it is continued, superseded, or taken by a host action handler to be performed.
   *
   * @example
   * ```ts
   * const call = session.pendingToolCall;
   * if (call) await session.continueToolCall(call.call_id, await perform(call.tool_name, call.arguments));
   * ```
   */
  get pendingToolCall(): PendingToolCall | undefined {
    return this.#pendingCall;
  }

  /**
   * Listens to events of some types (or `'*'` for all); returns the function that stops listening.
   * Each event is delivered once, in seq order.
   *
   * @example
   * ```ts
   * const stop = session.on('agent.message.delta', (e) => append(e.data.message_id, e.data.text));
   * session.on(['session.status_idle', 'session.status_requires_action'], (e) => setBusy(false));
   * ```
   */
  on<T extends EventType>(type: T | T[], listener: (event: EventOf<T>) => void): () => void;
  on(type: '*', listener: (event: SwitchboardEvent) => void): () => void;
  on(type: string | string[], listener: (event: never) => void): () => void {
    const types = Array.isArray(type) ? type : [type];
    for (const t of types) {
      let set = this.#listeners.get(t);
      if (!set) {
        set = new Set();
        this.#listeners.set(t, set);
      }
      set.add(listener as Listener);
    }
    return () => {
      for (const t of types) this.#listeners.get(t)?.delete(listener as Listener);
    };
  }

  /**
   * The events delivered from now on, as an async iterator (leave the loop to stop listening).
   *
   * @example
   * ```ts
   * for await (const event of session.events()) console.log(event.seq, event.type);
   * ```
   */
  events(): AsyncIterableIterator<SwitchboardEvent> {
    const queue: SwitchboardEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const stop = this.on('*', (event) => {
      queue.push(event);
      wake?.();
    });
    // Closing the session ends the loop too.
    const woken = () => wake?.();
    this.#onClose.add(woken);
    const iterator: AsyncIterableIterator<SwitchboardEvent> = {
      next: async () => {
        while (queue.length === 0 && !done && !this.#closed) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        const value = queue.shift();
        return value ? { value, done: false } : { value: undefined, done: true };
      },
      return: async () => {
        done = true;
        stop();
        this.#onClose.delete(woken);
        wake?.();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /**
   * Every event delivered so far, in order.
   *
   * @example
   * ```ts
   * const text = session.delivered.filter((e) => e.type === 'agent.message.delta').map((e) => e.data.text).join('');
   * ```
   */
  get delivered(): readonly SwitchboardEvent[] {
    return this.#delivered;
  }

  /**
   * The first event (already delivered or still to come) that matches; a {@link TimeoutError} when
   * none comes in time, a {@link ClosedError} when the session (or its client) closes first.
   *
   * @example
   * ```ts
   * const final = await session.next((e) => e.type === 'final_response', { timeoutMs: 30_000 });
   * ```
   */
  next(
    predicate: (event: SwitchboardEvent) => boolean,
    options: { timeoutMs?: number; since?: number } = {},
  ): Promise<SwitchboardEvent> {
    const since = options.since ?? 0;
    const seen = this.#delivered.find((e) => e.seq > since && predicate(e));
    if (seen) return Promise.resolve(seen);
    if (this.#closed) return Promise.reject(new ClosedError(`Session ${this.id} is closed.`));
    return new Promise((resolve, reject) => {
      const timers = this.#client.timers;
      const end = () => {
        stop();
        timers.clearTimeout(timer);
        this.#onClose.delete(closed);
      };
      const timer = timers.setTimeout(() => {
        end();
        reject(new TimeoutError(`Timed out waiting for an event of session ${this.id}.`));
      }, options.timeoutMs ?? 60_000);
      const stop = this.on('*', (event) => {
        if (!predicate(event)) return;
        end();
        resolve(event);
      });
      // A closed session delivers nothing more: the wait ends now rather than at its timeout.
      const closed = () => {
        end();
        reject(new ClosedError(`Session ${this.id} was closed before the event came.`));
      };
      this.#onClose.add(closed);
    });
  }

  /**
   * The event that ends the run `runId` (`session.status_idle` or `session.status_requires_action`).
   *
   * @example
   * ```ts
   * const { run_id } = await session.send('hello');
   * const end = await session.waitForTurn(run_id);
   * if (end.type === 'session.status_requires_action') showPending(session.pendingActions);
   * ```
   */
  waitForTurn(
    runId: string,
    options: { timeoutMs?: number } = {},
  ): Promise<EventOf<'session.status_idle' | 'session.status_requires_action'>> {
    return this.next((e) => TURN_ENDS.has(e.type) && e.run_id === runId, options) as Promise<
      EventOf<'session.status_idle' | 'session.status_requires_action'>
    >;
  }

  /**
   * Sends a message (`POST /api/chat`); its events arrive on the session. Creates the session on first use.
   *
   * @example
   * ```ts
   * const file = await client.upload(photo);
   * await session.send('What is on this receipt?', {
   *   hostContext: { view: { name: 'expenses' } },
   *   attachments: [{ kind: 'text', text: 'Trip to Lyon' }],
   *   files: [file],
   *   onBusy: 'interrupt',
   * });
   * ```
   */
  send(content: string, options: SendOptions = {}): Promise<Accepted> {
    const agentId = options.agentId ?? this.#options.agentId;
    return this.#chat(chatBody(this.id, content, { ...options, agentId }, this.#client.random));
  }

  /**
   * Sends the continuation of a pending host tool call: its result, or `outcome: 'failed'` when the
   * host could not perform it. Host action handlers send it on their own.
   *
   * @example
   * ```ts
   * await session.continueToolCall('call_select', { selected: 42 });
   * await session.continueToolCall('call_open', 'no such page', { outcome: 'failed' });
   * ```
   */
  continueToolCall(
    callId: string,
    result: unknown,
    options: { outcome?: 'succeeded' | 'failed'; hostContext?: HostContextInput; id?: string } = {},
  ): Promise<Accepted> {
    return this.#chat({
      id: options.id ?? `cont_${callId}`.slice(0, 128),
      session_id: this.id,
      content: '',
      tool_call_id: callId,
      tool_result: result === undefined ? null : result,
      ...(options.outcome === 'failed' && { tool_outcome: 'failed' }),
      ...(options.hostContext !== undefined && { host_context: options.hostContext }),
    });
  }

  /**
   * Asks for the newest answer again (`mode: "regenerate"`); by default the newest answer this session saw.
   *
   * @example
   * ```ts
   * await session.regenerate();
   * ```
   */
  regenerate(fromMessageId?: string, options: { id?: string } = {}): Promise<Accepted> {
    const from = fromMessageId ?? this.#lastAnswerId;
    if (!from)
      return Promise.reject(new Error('regenerate: no answer to regenerate yet; name its message id.'));
    return this.#chat({
      id: options.id ?? requestId(this.#client.random),
      session_id: this.id,
      content: '',
      mode: 'regenerate',
      from_message_id: from,
    });
  }

  /**
   * Changes a sent user message (`mode: "edit"`): the conversation is cut back to it and runs again.
   *
   * @example
   * ```ts
   * await session.edit(userMessageId, 'Where is order 43?');
   * ```
   */
  edit(messageId: string, content: string, options: SendOptions = {}): Promise<Accepted> {
    return this.#chat({
      ...chatBody(this.id, content, options, this.#client.random),
      mode: 'edit',
      from_message_id: messageId,
    });
  }

  /**
   * Carries on the last turn when its loop stopped at `max_turns` or `budget_reached` (its
   * `session.status_idle` says `status: "incomplete"` with that stop reason): the same loop resumes
   * where it stopped, with no new user message, in a new run. A turn that did not stop so (or a
   * later message) is `409 nothing_to_continue`, a spent budget `402 budget_exceeded`. A retry with
   * the same `id` answers the same run.
   *
   * @example
   * ```ts
   * session.on('session.status_idle', async (e) => {
   *   if (e.data.status === 'incomplete' && e.data.stop_reason === 'max_turns') await session.continueTurn();
   * });
   * ```
   */
  continueTurn(options: { id?: string } = {}): Promise<Accepted> {
    const socket = this.#client.transport === 'websocket';
    if (socket) this.#client.connect();
    return this.#client.request<Accepted>('POST', `/api/sessions/${encodeURIComponent(this.id)}/continue`, {
      id: options.id ?? requestId(this.#client.random),
    });
  }

  /**
   * Stops the running (or queued) turn, or withdraws the open requests of a paused session.
   *
   * @example
   * ```ts
   * stopButton.onclick = () => session.cancel();
   * ```
   */
  cancel(): Promise<Record<string, unknown>> {
    return this.#client.request('POST', `/api/sessions/${encodeURIComponent(this.id)}/cancel`, {});
  }

  /**
   * Rates an answer (`up`, `down`, or `null` to withdraw the rating).
   *
   * @example
   * ```ts
   * await session.feedback(answerId, 'down', { reasons: ['too short'], comment: 'say more' });
   * ```
   */
  feedback(
    messageId: string,
    rating: 'up' | 'down' | null,
    options: { reasons?: string[]; comment?: string } = {},
  ): Promise<Record<string, unknown>> {
    return this.#client.request(
      'POST',
      `/api/sessions/${encodeURIComponent(this.id)}/messages/${encodeURIComponent(messageId)}/feedback`,
      { rating, ...options },
    );
  }

  /**
   * The tools remembered for this session (`GET /api/sessions/{id}/remembered-tools`): each was
   * approved with `rememberForSession: true`, and its later calls run without asking (their
   * `agent.tool_use` event says `remembered: true`). Always empty for a host agent, which decides
   * for itself.
   *
   * @example
   * ```ts
   * const { tools } = await session.rememberedTools();
   * for (const t of tools) console.log(t.name, t.remembered_at, t.actor);
   * ```
   */
  rememberedTools(): Promise<RememberedTools> {
    return this.#client.request<RememberedTools>(
      'GET',
      `/api/sessions/${encodeURIComponent(this.id)}/remembered-tools`,
    );
  }

  /**
   * Forgets a remembered tool (`DELETE /api/sessions/{id}/remembered-tools/{name}`): its next call
   * asks again. A tool that is not remembered throws a `SwitchboardApiError` (`404
   * tool_not_remembered`).
   *
   * @example
   * ```ts
   * await session.forgetTool('wire_money');
   * ```
   */
  async forgetTool(name: string): Promise<void> {
    await this.#client.request(
      'DELETE',
      `/api/sessions/${encodeURIComponent(this.id)}/remembered-tools/${encodeURIComponent(name)}`,
    );
  }

  /**
   * Answers a request the turn waits on (`POST /api/sessions/{id}/actions/{actionId}`) with the body
   * its type takes. {@link approve}, {@link deny}, {@link answerQuestion} and {@link answerClientTool}
   * are the same with a shape for each.
   *
   * @example
   * ```ts
   * await session.resolve('req_17', { decision: 'approve', comment: 'ok' });
   * ```
   */
  resolve(actionId: string, answer: ResolveRequest): Promise<ResolveAccepted> {
    return this.#client.request<ResolveAccepted>(
      'POST',
      `/api/sessions/${encodeURIComponent(this.id)}/actions/${encodeURIComponent(actionId)}`,
      answer,
    );
  }

  /**
   * Approves a `tool_approval`, optionally with edited arguments. Edited `args` are checked first
   * against the request's `argsSchema` (when the session saw the request): a mismatch throws an
   * {@link ArgsValidationError} and nothing is sent. The server checks them again; what it refuses
   * throws a `SwitchboardApiError` (`422`, `issues` at `approved_args.<field>`).
   *
   * @example
   * ```ts
   * await session.approve('req_wire', { args: { amount: 50 }, comment: 'halved' });
   * ```
   */
  approve(
    actionId: string,
    options: {
      args?: Record<string, unknown>;
      comment?: string;
      rememberForSession?: boolean;
      validate?: boolean;
    } = {},
  ): Promise<ResolveAccepted> {
    if (options.args !== undefined && options.validate !== false) {
      const schema = this.#pending.get(actionId)?.argsSchema as JsonSchema | undefined;
      const issues = schema ? checkJsonSchema(schema, options.args, ['approved_args']) : [];
      if (issues.length > 0) return Promise.reject(new ArgsValidationError(issues));
    }
    return this.resolve(actionId, {
      decision: 'approve',
      ...(options.args !== undefined && { approved_args: options.args }),
      ...(options.comment !== undefined && { comment: options.comment }),
      ...(options.rememberForSession !== undefined && { remember_for_session: options.rememberForSession }),
    });
  }

  /**
   * Denies a `tool_approval`.
   *
   * @example
   * ```ts
   * await session.deny('req_wire', { comment: 'not this month' });
   * ```
   */
  deny(actionId: string, options: { comment?: string } = {}): Promise<ResolveAccepted> {
    return this.resolve(actionId, { decision: 'deny', ...options });
  }

  /**
   * Answers a `user_question`: a list (one answer per question) or an object by question.
   *
   * @example
   * ```ts
   * await session.answerQuestion('req_account', ['savings']);
   * ```
   */
  answerQuestion(
    actionId: string,
    answers: unknown[] | Record<string, unknown>,
    options: { comment?: string } = {},
  ): Promise<ResolveAccepted> {
    return this.resolve(actionId, { answers, ...options });
  }

  /**
   * Answers a `client_tool`: its output, or the error that kept the host from running it.
   *
   * @example
   * ```ts
   * await session.answerClientTool('req_page', { output: await navigator.clipboard.readText() });
   * await session.answerClientTool('req_page', { error: 'clipboard denied' });
   * ```
   */
  answerClientTool(
    actionId: string,
    answer: { output: unknown } | { error: string },
  ): Promise<ResolveAccepted> {
    return this.resolve(actionId, answer as ResolveRequest);
  }

  /**
   * Reads the event log over HTTP (`GET /api/sessions/{id}/events`): after `after` (default: the last
   * applied seq), at most `limit`, waiting up to `wait` seconds (0–20) for the next event when there is
   * none yet. The events are returned, not delivered; see {@link catchUp} for that. Closing the
   * session aborts the read.
   *
   * @example
   * ```ts
   * const { events, has_more } = await session.readEvents({ after: 0, limit: 100 });
   * ```
   */
  readEvents(options: { after?: number; limit?: number; wait?: number } = {}): Promise<EventsPage> {
    const query = new URLSearchParams({ after: String(options.after ?? this.#lastSeq) });
    if (options.limit !== undefined) query.set('limit', String(options.limit));
    if (options.wait !== undefined) query.set('wait', String(options.wait));
    return this.#client.request<EventsPage>(
      'GET',
      `/api/sessions/${encodeURIComponent(this.id)}/events?${query}`,
      undefined,
      this.#reads ? { signal: this.#reads.signal } : {},
    );
  }

  /**
   * Reads over HTTP every event after the last applied one and delivers them (by the same rule);
   * resolves once the log is read to its end.
   *
   * @example
   * ```ts
   * await session.catchUp(); // e.g. before showing a session restored from storage
   * ```
   */
  async catchUp(options: { wait?: number } = {}): Promise<void> {
    for (;;) {
      const page = await this.readEvents({ wait: options.wait });
      for (const event of page.events) this.receive(event);
      if (!page.has_more || page.events.length === 0) {
        this.#catchUpTo = Math.min(this.#catchUpTo, page.last_seq);
        this.#maybePerform();
        return;
      }
    }
  }

  /**
   * Stops following the session (its listeners stay, but nothing more is delivered): its long poll
   * and any read of its log in flight are aborted, its timers cleared, its pending `next()` waits
   * rejected with a {@link ClosedError}.
   *
   * @example
   * ```ts
   * session.close();
   * ```
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const wake of [...this.#onClose]) wake();
    this.#onClose.clear();
    if (this.#gapTimer !== undefined) this.#client.timers.clearTimeout(this.#gapTimer);
    this.#gapTimer = undefined;
    this.#reads?.abort();
    this.#client.forget(this);
  }

  /** Whether a join of this session is unanswered (a session with no message yet cannot be joined). */
  get awaitingJoin(): boolean {
    return this.#awaitingJoin;
  }

  /** The join frame for this session; `catchUp` when it is a (re)connection's, whose replay must end before host calls run. */
  joinFrame(catchUp: boolean): Record<string, unknown> {
    if (catchUp) {
      this.#catchUpTo = Number.POSITIVE_INFINITY;
      this.#awaitingJoin = true;
    }
    const context = catchUp && this.#options.hostContext;
    return {
      action: 'assistant_join_session',
      session_id: this.id,
      after_seq: this.#lastSeq,
      ...(context && { host_context: context }),
    };
  }

  /** The `assistant:joined` answer: the replay is through `replayed_through`. */
  joined(frame: JoinedFrame): void {
    this.#awaitingJoin = false;
    if (this.#catchUpTo === Number.POSITIVE_INFINITY) this.#catchUpTo = frame.replayed_through;
    this.#maybePerform();
    this.#armGapTimer(frame.last_seq);
  }

  /**
   * Takes one event from any transport, by the host rule: a seq not above the last applied is dropped;
   * one further ahead is held until those before it arrive; a gap that stays open is read over HTTP.
   */
  receive(event: SwitchboardEvent): void {
    if (this.#closed || event.seq <= this.#lastSeq || this.#held.has(event.seq)) return;
    this.#held.set(event.seq, event);
    for (let next = this.#held.get(this.#lastSeq + 1); next; next = this.#held.get(this.#lastSeq + 1)) {
      this.#held.delete(next.seq);
      this.#lastSeq = next.seq;
      this.#apply(next);
    }
    this.#armGapTimer();
  }

  /** Reads the gap over HTTP when events are held (or the log is known to be ahead) for `gapTimeoutMs`. */
  #armGapTimer(knownLast = 0): void {
    const timers = this.#client.timers;
    if (this.#gapTimer !== undefined) timers.clearTimeout(this.#gapTimer);
    this.#gapTimer = undefined;
    if (this.#held.size === 0 && knownLast <= this.#lastSeq) return;
    this.#gapTimer = timers.setTimeout(() => {
      this.#gapTimer = undefined;
      this.catchUp().catch((error) => this.#reportUnlessClosed(error));
    }, this.#client.options.gapTimeoutMs ?? 2_000);
  }

  /** Reports an error of a read the session made on its own, unless it is the abort its closing caused. */
  #reportUnlessClosed(error: unknown): void {
    if (!this.#closed) this.#client.reportError(error);
  }

  /** Long polls of the event log, for a client without WebSocket; runs until the session or client closes. */
  startPolling(): void {
    if (this.#polling || this.#closed) return;
    this.#polling = true;
    const wait = this.#client.options.pollWaitSeconds ?? 20;
    const loop = async () => {
      let failures = 0;
      while (!this.#closed && !this.#client.closed) {
        try {
          await this.catchUp({ wait });
          failures = 0;
        } catch (error) {
          if (this.#closed) break;
          this.#client.reportError(error);
          failures += 1;
          const backoff = Math.min(30_000, 500 * 2 ** failures) * (1 - 0.5 * this.#client.random());
          await delay(this.#client.timers, backoff, this.#reads?.signal);
        }
      }
      this.#polling = false;
    };
    void loop();
  }

  /**
   * Reads a truncated event whole, tracks what it means for the session, then hands it to listeners
   * (in order, after any earlier one): the session's state is built from whole events only.
   */
  #apply(event: SwitchboardEvent): void {
    this.#delivery = this.#delivery.then(async () => {
      const whole = event.truncated && event.href ? await this.#readWhole(event) : event;
      this.#track(whole);
      this.#delivered.push(whole);
      for (const key of [whole.type, '*']) {
        for (const listener of [...(this.#listeners.get(key) ?? [])]) {
          try {
            listener(whole);
          } catch (error) {
            this.#client.reportError(error);
          }
        }
      }
    });
  }

  /** A truncated event, read whole from its `href`. */
  async #readWhole(event: SwitchboardEvent): Promise<SwitchboardEvent> {
    try {
      // The event itself, inline or (past a page's bound) through the short-lived link it redirects to.
      const whole = await this.#client.request<SwitchboardEvent>(
        'GET',
        event.href as string,
        undefined,
        this.#reads ? { signal: this.#reads.signal } : {},
      );
      return whole?.seq === event.seq && whole.type === event.type ? whole : event;
    } catch (error) {
      this.#reportUnlessClosed(error);
      return event;
    }
  }

  /** Keeps the pending requests, the pending host call and the newest answer up to date. */
  #track(event: SwitchboardEvent): void {
    switch (event.type) {
      case 'action.required':
        for (const action of event.data.actions ?? []) this.#pending.set(action.id, action);
        break;
      case 'action.resolved':
        this.#pending.delete(event.data.action_id);
        if (this.#pendingCall?.call_id === event.data.action_id) this.#pendingCall = undefined;
        break;
      case 'final_response':
        this.#lastAnswerId = event.data.message_id;
        this.#pendingCall = event.data.pending_tool_call ?? undefined;
        this.#callReady = false;
        break;
      case 'session.status_running':
      case 'user.message':
        // A newer turn: whatever was pending was continued or superseded.
        this.#pendingCall = undefined;
        break;
      case 'session.status_requires_action':
        this.#callReady = true;
        this.#maybePerform();
        break;
    }
  }

  /**
   * Performs the pending host call and the open client tool requests that have a handler, once the
   * turn that made them has ended and the session is caught up, and sends their answers.
   */
  #maybePerform(): void {
    // Only once the turn that made them has ended (they can be answered from then on) and the replay
    // is through: a call or request answered further on in the log is not performed again.
    if (!this.#callReady || this.#lastSeq < this.#catchUpTo) return;
    const call = this.#pendingCall;
    const hostAction =
      call &&
      !this.#performed.has(call.call_id) &&
      (this.#options.hostActions?.[call.tool_name] ?? this.#client.options.hostActions?.[call.tool_name]);
    if (call && hostAction) {
      this.#pendingCall = undefined;
      this.#perform(
        call.call_id,
        () => hostAction(call.arguments, { session: this, callId: call.call_id, toolName: call.tool_name }),
        ({ result, error }) =>
          this.continueToolCall(
            call.call_id,
            error ?? result,
            error === undefined ? {} : { outcome: 'failed' },
          ),
      );
    }
    for (const action of this.#pending.values()) {
      const toolName = action.toolName ?? '';
      const clientTool =
        action.type === 'client_tool' &&
        !this.#performed.has(action.id) &&
        (this.#options.clientTools?.[toolName] ?? this.#client.options.clientTools?.[toolName]);
      if (!clientTool) continue;
      this.#perform(
        action.id,
        () => clientTool(action.args, { session: this, actionId: action.id, toolName, action }),
        ({ result, error }) =>
          this.answerClientTool(action.id, error === undefined ? { output: result ?? null } : { error }),
      );
    }
  }

  /** Runs a handler once per id and sends what it returned, or the message of what it threw. */
  #perform(
    id: string,
    handler: () => unknown,
    send: (outcome: { result?: unknown; error?: string }) => Promise<unknown>,
  ): void {
    this.#performed.add(id);
    const run = async () => {
      let outcome: { result?: unknown; error?: string };
      try {
        outcome = { result: await handler() };
      } catch (error) {
        outcome = { error: error instanceof Error ? error.message : String(error) };
      }
      await send(outcome);
    };
    run().catch((error) => this.#client.reportError(error));
  }

  async #chat(body: Record<string, unknown>): Promise<Accepted> {
    const socket = this.#client.transport === 'websocket';
    if (socket) this.#client.connect();
    const accepted = await this.#client.request<Accepted>('POST', '/api/chat', body);
    // The session exists now: a join refused before (no such session yet) is made again.
    if (socket && this.#awaitingJoin) this.#client.rejoin(this);
    return accepted;
  }
}
