/**
 * After this many receives a job goes to the dead-letter queue. Hand-backs count as receives: the
 * tenth record of a full batch (`workerBatchSize` is at most 10) can be handed back nine times while
 * the turns before it run, so the threshold leaves room for that and for five real failures after it.
 * The stack sets it on the queue and the sandbox on its own.
 */
export const TURNS_MAX_RECEIVE_COUNT = 15;
