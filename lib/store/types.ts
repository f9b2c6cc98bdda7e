/** Where a run is: queued by the API, running in a worker, or ended. */
export type RunStatus =
  | 'queued'
  | 'running'
  | 'completed'
  | 'requires_action'
  | 'error'
  | 'cancelled'
  | 'incomplete'
  /** Taken as steering by the turn that was running when it arrived. */
  | 'steered';

/** Where a request the turn waits on is. `queued` host calls are handed over one at a time. */
export type ActionStatus = 'pending' | 'queued' | 'resolved' | 'cancelled' | 'expired' | 'superseded';

/**
 * One state change of an item that has a `status` (a run, a request), written as one conditional
 * UpdateItem by {@link applyTransition}. Attribute `a` is written from the value of the same name;
 * a condition names it `#a` and its value `:a`.
 */
export interface Transition<S extends string = string, A extends string = string> {
  /** The statuses it leaves: the write's condition is `status IN from`. */
  readonly from: readonly S[];
  /** The statuses it may enter (the first unless the writer names another); none: the status stays. */
  readonly to?: readonly S[];
  /** The attributes it sets, each from the value of the same name. */
  readonly set: readonly A[];
  /** The attributes it removes (the due index, once the item is no longer due). */
  readonly remove?: readonly string[];
  /** A further condition on the item it leaves: who holds it, whether it is still live. */
  readonly guard?: string;
  /**
   * Applied already by this very write: the item is in the status it enters (or, when the status
   * stays, in one it leaves) with these attributes at the values this write sets. The SDK retries a
   * call whose answer was lost; that retry then finds its own write and succeeds again.
   */
  readonly again?: readonly A[];
}
