/**
 * How long a cancel takes to reach a running turn: from POST /api/sessions/{id}/cancel to the
 * turn's closing event, on the sandbox, for a given `runs.cancelPollMs`. Run: `npm run bench:cancel`
 * (RUNS=20, POLL_MS=500 to change them).
 */
import { performance } from 'node:perf_hooks';
import { createSwitchboard } from '../lib/index.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { runAgents } from '../test/support/run-agents.ts';
import { TestSocket } from '../test/support/ws-client.ts';

const RUNS = Number(process.env.RUNS ?? 20);
const POLL_MS = Number(process.env.POLL_MS ?? 500);
const agents = runAgents();
const app = createSwitchboard();
for (const d of agents.definitions) app.registerHostAgent(d);
const sandbox = await startSandbox({
  app,
  port: 0,
  logLevel: 'ERROR',
  settings: { runs: { cancelPollMs: POLL_MS } },
});
const host = await TestSocket.open(sandbox.wsUrl);
const delays: number[] = [];
for (let i = 0; i < RUNS; i += 1) {
  const accepted = await host.request({
    action: 'assistant_message',
    session_id: `cancel-${i}`,
    agent_id: 'polite',
    content: 'work',
  });
  await agents.started(`cancel-${i}`);
  const t0 = performance.now();
  await fetch(`${sandbox.url}/api/sessions/cancel-${i}/cancel`, { method: 'POST' });
  await host.waitFor((f) => f.type === 'session.status_idle' && f.run_id === accepted.run_id);
  delays.push(performance.now() - t0);
}
await host.close();
await sandbox.close();
const sorted = [...delays].sort((a, b) => a - b);
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
console.log(`cancel → closed turn, ${RUNS} runs, runs.cancelPollMs = ${POLL_MS}`);
console.log(`  median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, max ${at(1).toFixed(0)} ms`);
console.log(`  median / poll interval: ${(at(0.5) / POLL_MS).toFixed(2)}`);
process.exit(0);
