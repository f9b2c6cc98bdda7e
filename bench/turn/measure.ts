import { parseSettings } from '../../lib/config/index.ts';
import { type BundleReport, measureBundles } from '../bundles.ts';
import { startBench } from './bench-sandbox.ts';
import { type CancelResult, cancels } from './cancel.ts';
import { type Floors, type MemorySizes, measureFloors, memorySizes } from './floors.ts';
import { type ManyResult, manySessions } from './many.ts';
import type { BenchOptions } from './options.ts';
import { standardTurn, type TurnResult } from './standard-turn.ts';

/** What the bench measured besides the cancels: left out by `npm run bench:cancel`. */
export interface TurnFigures {
  floors: Floors;
  /** The standard turn, `options.turns` times. */
  turns: TurnResult[];
  memory: MemorySizes;
  bundles: BundleReport[];
  /** One session alone, then `options.sessions` at once, each on a sandbox of their own. */
  one: ManyResult;
  many: ManyResult;
}

/** Everything the bench measured, for bench/turn.ts to print. */
export interface Figures {
  options: BenchOptions;
  cancel: CancelResult;
  /** `runs.cancelPollMs`, the setting the cancel latency depends on. */
  cancelPollMs: number;
  turn?: TurnFigures;
}

/**
 * Runs the bench's phases in the order that keeps them apart: the floors while nothing else runs,
 * the standard turns, the cancels; then, the metered sandbox closed, the bundles and the many
 * sessions (each on a sandbox of their own).
 */
export async function measure(options: BenchOptions): Promise<Figures> {
  const bench = await startBench(options);
  let first: Pick<TurnFigures, 'floors' | 'turns' | 'memory'> | undefined;
  if (!options.onlyCancel) {
    const floors = await measureFloors(bench);
    const turns: TurnResult[] = [];
    for (let n = 0; n < options.turns; n += 1) turns.push(await standardTurn(bench, n, options.turnShape));
    first = { floors, turns, memory: await memorySizes() };
  }
  const cancel = await cancels(bench, options.cancels);
  const cancelPollMs = parseSettings(undefined).runs.cancelPollMs;
  bench.meter.stop();
  await bench.sandbox.close();
  if (!first) return { options, cancel, cancelPollMs };

  const bundles = await measureBundles(options.smoke ? { runs: 1, functions: ['http'] } : {});
  const one = await manySessions(bench, 1);
  const many = await manySessions(bench, options.sessions);
  return { options, cancel, cancelPollMs, turn: { ...first, bundles, one, many } };
}
