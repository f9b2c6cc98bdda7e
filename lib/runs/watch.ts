import type { Runtime } from '../config/index.ts';
import { type CancelReason, getRun, type RunRecord, renewLease } from '../store/index.ts';

/** Every run this process is working on, so that a shutdown can stop them all. */
const active = new Set<RunWatch>();

/**
 * Watches a run while its agent works: it reads the run item every `runs.cancelPollMs` (a
 * GetItem of one key, never a scan) to learn of a cancel, and renews the lease a third of the way
 * through it. A lost lease stops the run too: another worker owns it now.
 */
export class RunWatch {
  readonly stopped: Promise<CancelReason>;
  #reason: CancelReason | undefined;
  #resolve!: (reason: CancelReason) => void;
  #poll: NodeJS.Timeout | undefined;
  #renew: NodeJS.Timeout | undefined;
  #deadline: NodeJS.Timeout | undefined;

  /**
   * @param owner the worker holding the run (its lease owner: the invocation's request id)
   * @param stopAt when to stop the run with `shutdown` (epoch ms): before its invocation's timeout
   */
  constructor(
    private readonly rt: Runtime,
    private readonly run: Pick<RunRecord, 'sessionId' | 'runId'>,
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
    const { cancelPollMs, leaseMs } = this.rt.settings.runs;
    this.#poll = setInterval(() => void this.#check(), cancelPollMs);
    this.#renew = setInterval(() => void this.#extend(), Math.max(1_000, Math.floor(leaseMs / 3)));
    if (this.stopAt !== undefined) {
      this.#deadline = setTimeout(() => this.stop('shutdown'), Math.max(0, this.stopAt - Date.now()));
    }
    return this;
  }

  /** Stops the run (once): a cancel, a delete, a shutdown, or a lost lease. */
  stop(reason: CancelReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#resolve(reason);
  }

  /**
   * Whether this worker still holds the run, checked with one conditional write (the lease
   * renewed). A worker about to store a turn's outcome asks first: a stale one must write nothing.
   */
  async confirm(): Promise<boolean> {
    if (this.#reason === 'lease_lost') return false;
    const renewed = await renewLease(this.rt, this.run, this.owner, Date.now());
    if (!renewed) this.stop('lease_lost');
    return renewed;
  }

  end(): void {
    clearInterval(this.#poll);
    clearInterval(this.#renew);
    clearTimeout(this.#deadline);
    active.delete(this);
  }

  async #check(): Promise<void> {
    const run = await getRun(this.rt, this.run.sessionId, this.run.runId).catch(() => undefined);
    if (run?.cancelRequested) this.stop(run.cancelRequested);
  }

  async #extend(): Promise<void> {
    const renewed = await renewLease(this.rt, this.run, this.owner, Date.now()).catch(() => true);
    if (!renewed) this.stop('lease_lost');
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
