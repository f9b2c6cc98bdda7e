import type { Runtime } from '../config/index.ts';
import { type CancelReason, cancelRequestsOf, type RunRecord, renewLease } from '../store/index.ts';
import { eventsOfCurrentSpan, type SpanAttributes } from '../telemetry/index.ts';

/** Who a stop's reason says asked for it, as the turn span's `switchboard.cancel` event names it. */
const ASKED_BY: Record<Exclude<CancelReason, 'lease_lost'>, string> = {
  user: 'user',
  deleted: 'session_delete',
  shutdown: 'runtime',
};

/** The event a stop adds to the turn span: a cancel (with who asked), or the lease lost to another worker. */
export function stopEvent(reason: CancelReason): [string, SpanAttributes] {
  if (reason === 'lease_lost') return ['switchboard.lease.lost', {}];
  return [
    'switchboard.cancel',
    { 'switchboard.cancel.reason': reason, 'switchboard.cancel.by': ASKED_BY[reason] },
  ];
}

/** Every run this process is working on, so that a shutdown can stop them all. */
const active = new Set<RunWatch>();

/**
 * One poll for cancels per runtime: every `runs.cancelPollMs` it reads whether any of the runs this
 * process holds were asked to stop, in one BatchGetItem (a worker invocation holds up to a batch of
 * runs), instead of one read per run.
 */
class CancelPoller {
  readonly #watches = new Set<RunWatch>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(private readonly rt: Runtime) {}

  add(watch: RunWatch): void {
    this.#watches.add(watch);
    this.#timer ??= setInterval(() => void this.#poll(), this.rt.settings.runs.cancelPollMs);
  }

  delete(watch: RunWatch): void {
    this.#watches.delete(watch);
    if (this.#watches.size > 0) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #poll(): Promise<void> {
    // A poll slower than the interval is not overlapped by the next one.
    if (this.#polling) return;
    const due = [...this.#watches].filter((w) => w.wantsPoll());
    if (due.length === 0) return;
    this.#polling = true;
    try {
      const stops = await cancelRequestsOf(
        this.rt,
        due.map((w) => w.run),
      );
      for (const watch of due) {
        const reason = stops.get(watch.run.runId);
        if (reason) watch.stop(reason);
      }
    } catch (error) {
      // The next poll, or the lease renewal, reads it again.
      this.rt.logger.warn('Could not read whether the running turns were cancelled', {
        error: String(error),
      });
    } finally {
      this.#polling = false;
    }
  }
}

const pollers = new WeakMap<Runtime, CancelPoller>();

function pollerOf(rt: Runtime): CancelPoller {
  let poller = pollers.get(rt);
  if (!poller) {
    poller = new CancelPoller(rt);
    pollers.set(rt, poller);
  }
  return poller;
}

/**
 * Watches a run while its agent works, whether it streams or is silent: every `runs.cancelPollMs`
 * the runtime's poller reads the run's `cancelRequested` (eventually consistent, one attribute, half
 * a read unit; the runs of one invocation in one BatchGetItem), and a third of the way through the
 * lease the watch renews it with a write that also returns `cancelRequested`, so that tick needs no
 * read. A lost lease stops the run too: another worker owns it now.
 */
export class RunWatch {
  readonly stopped: Promise<CancelReason>;
  #reason: CancelReason | undefined;
  #resolve!: (reason: CancelReason) => void;
  #renew: NodeJS.Timeout | undefined;
  #deadline: NodeJS.Timeout | undefined;
  #renewedAt = Number.NEGATIVE_INFINITY;
  /** The turn's span, held: a stop is noticed by a poll or a timer outside the turn's own flow. */
  readonly #event = eventsOfCurrentSpan();

  /**
   * @param owner the worker holding the run (its lease owner: the invocation's request id)
   * @param stopAt when to stop the run with `shutdown` (epoch ms): before its invocation's timeout
   */
  constructor(
    private readonly rt: Runtime,
    readonly run: Pick<RunRecord, 'sessionId' | 'runId'> & Partial<Pick<RunRecord, 'agentId'>>,
    readonly owner: string,
    private readonly stopAt?: number,
  ) {
    this.stopped = new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** The runtime the run belongs to (one process may run several sandboxes). */
  get runtime(): Runtime {
    return this.rt;
  }

  /** Why the run was stopped, once it was. */
  get reason(): CancelReason | undefined {
    return this.#reason;
  }

  start(): this {
    active.add(this);
    const { leaseMs } = this.rt.settings.runs;
    pollerOf(this.rt).add(this);
    this.#renew = setInterval(() => void this.#extend(), Math.max(1_000, Math.floor(leaseMs / 3)));
    if (this.stopAt !== undefined) {
      this.#deadline = setTimeout(() => this.#outOfTime(), Math.max(0, this.stopAt - this.rt.clock()));
    }
    return this;
  }

  /** The invocation's time is nearly up: the run is stopped so that it closes before the timeout. */
  #outOfTime(): void {
    if (!this.#reason)
      this.rt.logger.warn('The turn ran out of the worker’s time: it is stopped (reason shutdown)', {
        ...(this.run.agentId && { agentId: this.run.agentId }),
        sessionId: this.run.sessionId,
        runId: this.run.runId,
      });
    this.stop('shutdown');
  }

  /** Stops the run (once): a cancel, a delete, a shutdown, or a lost lease. */
  stop(reason: CancelReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#event(...stopEvent(reason));
    this.#resolve(reason);
  }

  /**
   * Whether this worker still holds the run, checked with one conditional write (the lease
   * renewed). A worker about to store a turn's outcome asks first: a stale one must write nothing.
   */
  async confirm(): Promise<boolean> {
    if (this.#reason === 'lease_lost') return false;
    const renewed = await renewLease(this.rt, this.run, this.owner, this.rt.clock());
    this.#renewedAt = this.rt.clock();
    if (!renewed) this.stop('lease_lost');
    else if (renewed.cancelRequested) this.stop(renewed.cancelRequested);
    return renewed !== undefined;
  }

  end(): void {
    pollerOf(this.rt).delete(this);
    clearInterval(this.#renew);
    clearTimeout(this.#deadline);
    active.delete(this);
  }

  /** Whether the poller should read this run: it is not stopped, and no renewal just read it. */
  wantsPoll(): boolean {
    return !this.#reason && this.rt.clock() - this.#renewedAt >= this.rt.settings.runs.cancelPollMs;
  }

  async #extend(): Promise<void> {
    this.#renewedAt = this.rt.clock();
    const renewed = await renewLease(this.rt, this.run, this.owner, this.rt.clock()).catch(
      (): { cancelRequested?: CancelReason } => ({}),
    );
    if (!renewed) this.stop('lease_lost');
    else if (renewed.cancelRequested) this.stop(renewed.cancelRequested);
  }
}

/** Stops every run of this process (or of one runtime): the sandbox's SIGTERM or close. */
export function stopAllRuns(reason: CancelReason, runtime?: Runtime): number {
  let stopped = 0;
  for (const watch of active) {
    if (runtime && watch.runtime !== runtime) continue;
    watch.stop(reason);
    stopped += 1;
  }
  return stopped;
}

/**
 * Stops the runs one worker invocation holds (its request id is their lease owner): an invocation
 * the sandbox abandoned at its function timeout, whose handler it cannot kill.
 */
export function stopRunsOf(owner: string, reason: CancelReason, runtime?: Runtime): number {
  let stopped = 0;
  for (const watch of active) {
    if (watch.owner !== owner || (runtime && watch.runtime !== runtime)) continue;
    watch.stop(reason);
    stopped += 1;
  }
  return stopped;
}
