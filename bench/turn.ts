/**
 * What one turn costs: AWS requests by operation (the drivers of the bill: DynamoDB request units,
 * SQS requests, API Gateway messages) and the latency a host sees, measured on the sandbox with the
 * real SDK clients. Run: `npm run bench` (TURNS=50 to change the count).
 */
import { performance } from 'node:perf_hooks';
import { demoAgent } from '../demo/demo-agent.ts';
import { createSwitchboard } from '../lib/index.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { TestSocket } from '../test/support/ws-client.ts';

const TURNS = Number(process.env.TURNS ?? 20);
const counts = new Map<string, number>();

function countRequests(
  client: { middlewareStack: { add: (mw: never, opts: never) => void } },
  service: string,
) {
  const middleware =
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => (args: unknown) => {
      const key = `${service} ${context.commandName?.replace(/Command$/, '') ?? '?'}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return next(args);
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: `count-${service}` } as never);
}

const app = createSwitchboard();
app.registerHostAgent(demoAgent({ chunkDelayMs: 0 }));
const sandbox = await startSandbox({ app, port: 0, logLevel: 'ERROR' });
// Every function's clients: each signs as its own role, so each has its own. `onClient` also gives
// the clients created on first use (S3), when they are created.
const SERVICE_LABELS = { dynamodb: 'DynamoDB', sqs: 'SQS', s3: 'S3', connections: 'ApiGateway' } as const;
for (const runtime of Object.values(sandbox.runtimes)) {
  runtime.onClient((service, client) => countRequests(client as never, SERVICE_LABELS[service]));
}

const host = await TestSocket.open(sandbox.wsUrl);
const firstEvent: number[] = [];
const done: number[] = [];
let events = 0;
for (let i = 0; i < TURNS; i += 1) {
  const started = performance.now();
  const before = host.frames.length;
  const accepted = await host.request({
    action: 'assistant_message',
    id: `bench-${i}`,
    session_id: `bench-${i % 4}`,
    agent_id: 'demo',
    content: 'how much does one turn cost',
  });
  await host.waitFor((f) => host.frames.indexOf(f) >= before && f.type === 'agent.message.delta');
  firstEvent.push(performance.now() - started);
  await host.waitFor((f) => f.type === 'session.status_idle' && f.run_id === accepted.run_id);
  done.push(performance.now() - started);
  events += host.frames.slice(before).filter((f) => typeof f.seq === 'number').length;
}
await host.close();
await sandbox.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(`turns: ${TURNS}, events per turn: ${(events / TURNS).toFixed(1)}`);
console.log(`latency to the first text delta: median ${median(firstEvent).toFixed(1)} ms`);
console.log(`latency to the end of the turn:  median ${median(done).toFixed(1)} ms`);
console.log('AWS requests per turn:');
for (const [key, n] of [...counts.entries()].sort())
  console.log(`  ${key.padEnd(32)} ${(n / TURNS).toFixed(2)}`);
const dynamo = [...counts.entries()].filter(([k]) => k.startsWith('DynamoDB')).reduce((a, [, n]) => a + n, 0);
console.log(`DynamoDB requests per event: ${(dynamo / events).toFixed(2)}`);
process.exit(0);
