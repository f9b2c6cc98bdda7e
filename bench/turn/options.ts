import { parseSettings } from '../../lib/config/index.ts';
import { STANDARD_TURN, type TurnShape } from '../support/agents.ts';

/** What the bench measures, and how many times: from its arguments and the environment. */
export interface BenchOptions {
  /**
   * `--smoke`: every phase once, in a tiny configuration (a few chunks, two sessions, one cancel, the
   * HTTP function's bundle): what `test/bench/smoke.test.ts` runs on every `npm test`, so the bench
   * cannot rot. Its figures mean nothing.
   */
  smoke: boolean;
  /** `cancel` (`npm run bench:cancel`): the cancel part alone. */
  onlyCancel: boolean;
  /** Standard turns averaged (TURNS, 3). */
  turns: number;
  /** Sessions streaming at once (SESSIONS, 200). */
  sessions: number;
  /** Cancels measured (CANCELS, 10). */
  cancels: number;
  /** The standard turn, or the smoke run's few chunks of the same parts (tools, approval, the answer's run). */
  turnShape: TurnShape;
  /** The chunks of each of the many sessions' turns. */
  manyChunks: number;
  /** How long the many sessions may take, from the agents' release, before what is missing counts as lost. */
  manyDeadlineMs: number;
  /** Hosts joined to the standard turn. */
  connections: number;
  turnTimeoutMs: number;
  /** The flush window: the default, or WINDOW_MS to measure another (how the default was chosen). */
  coalesceMs: number;
  /** Whether WINDOW_MS chose the flush window. */
  windowGiven: boolean;
}

/** The bench's options from its command line (`--smoke`, `cancel`) and environment. */
export function benchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const smoke = argv.includes('--smoke');
  return {
    smoke,
    onlyCancel: argv.includes('cancel'),
    turns: Number(env.TURNS ?? (smoke ? 1 : 3)),
    sessions: Number(env.SESSIONS ?? (smoke ? 2 : 200)),
    cancels: Number(env.CANCELS ?? (smoke ? 1 : 10)),
    turnShape: smoke ? { before: 12, after: 4, intervalMs: 5, toolCalls: 1, approval: true } : STANDARD_TURN,
    manyChunks: smoke ? 10 : 100,
    manyDeadlineMs: Number(env.MANY_DEADLINE_MS ?? 60_000),
    connections: 2,
    turnTimeoutMs: 180_000,
    coalesceMs: Number(env.WINDOW_MS ?? parseSettings(undefined).stream.coalesceMs),
    windowGiven: env.WINDOW_MS !== undefined && env.WINDOW_MS !== '',
  };
}
