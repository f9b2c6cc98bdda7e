/** The window a moment falls in, and how long until the next one starts. */
export interface RateWindow {
  /** Epoch seconds of the window's start: a multiple of the rule's `windowSeconds`. */
  start: number;
  /** Whole seconds until the next window starts, at least 1: the `Retry-After` of a refusal. */
  retryAfterSeconds: number;
}
