/**
 * Where the walls are as streaming sessions grow: a sample of sessions runs the standard turn for real
 * on the sandbox (the runtime's own code), metered by partition key in the table and each index and by
 * service; the figures per turn are extrapolated to 1,000, 10,000 and 100,000 continuously streaming
 * sessions (bench/scale/model.ts says how), and printed beside a partition's limits and each service's
 * documented quota, with the first wall. docs/performance.md, "Scaling on AWS", is written from it.
 *
 * Run: `npm run bench:scale`. SAMPLE (20) sessions run for real, SPEED (5) times the turn's pace;
 * TENANT_SESSIONS (1,000) streaming sessions in the largest tenant; `--smoke` a short turn and three
 * sessions (test/bench/scale.test.ts); `--json` the figures and verdicts as one JSON line at the end.
 */
import { performance } from 'node:perf_hooks';
import { judge, printScale } from './scale/report.ts';
import { sampleScale, scaleOptions } from './scale/run.ts';

const started = performance.now();
const options = scaleOptions(process.argv, process.env);
const sample = await sampleScale(options);
console.log(printScale(sample, options.assumptions, { speed: options.speed }));
console.log(`\nbench took ${((performance.now() - started) / 1_000).toFixed(1)} s`);
if (process.argv.includes('--json')) {
  const { points, verdicts } = judge(sample, options.assumptions);
  console.log(
    JSON.stringify({
      sample: { sessions: sample.sessions, requestsPerTurn: sample.requestsPerTurn, profile: sample.profile },
      points: points.map((p) => ({
        sessions: p.sessions,
        busiest: p.busiest && {
          pattern: p.busiest.family.pattern,
          space: p.busiest.family.space,
          share: p.busiest.share,
        },
        limits: p.limits.map((l) => ({ name: l.quota.name, use: l.use, share: l.share })),
      })),
      verdicts,
    }),
  );
}
