export { cancelSession, deleteSession } from './cancel.ts';
export { submitAnswer, submitContinuation, supersedeOpen } from './continuation.ts';
export { EventStream, FencedError } from './event-stream.ts';
export { enqueue, type TurnJob, TurnJobSchema } from './job.ts';
export { RetryLaterError, runTurn } from './run-turn.ts';
export { type Accepted, type BeforeEnqueue, submitTurn } from './submit.ts';
export { TurnState } from './turn-state.ts';
export { RunWatch, stopAllRuns } from './watch.ts';
