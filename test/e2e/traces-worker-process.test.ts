import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import type { TurnTrace } from '../../sandbox/trace-receiver.ts';
import app, { QUICK_MESSAGE } from '../support/crash-agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { findSpan } from '../support/span-tree.ts';
import { queued } from '../support/wait.ts';

/**
 * A worker in a child process (`workerProcess`) traces as a deployed worker does: it exports its
 * spans over OTLP to the sandbox's receiver at the end of each invocation, and its turn continues
 * the trace of the request that queued it.
 */
const AGENTS = fileURLToPath(new URL('../support/crash-agents.ts', import.meta.url));
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({
    app,
    workerProcess: { agents: AGENTS },
    traces: { receiver: true },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

async function tracesOf(session: string): Promise<TurnTrace[]> {
  const res = await fetch(`${sandbox.url}/sandbox/traces?session=${encodeURIComponent(session)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { traces: TurnTrace[] }).traces;
}

const find = findSpan;

describe('a worker in a child process', () => {
  it('exports its turn to the sandbox’s receiver, under the request’s trace', async () => {
    const session = 'child-traced-1';
    const traceId = '7d3e2c1b0a9f48e7b6c5d4e3f2a1b0c9';
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: session, agent_id: 'slow', content: QUICK_MESSAGE, wait_ms: 10_000 },
      { headers: { traceparent: `00-${traceId}-${traceId.slice(0, 16)}-01` } },
    );
    expect(res.status, res.text).toBe(200);
    const turnOf = (traces: TurnTrace[]) =>
      find(traces.find((t) => t.traceId === traceId)?.roots ?? [], 'turn');
    await expect
      .poll(async () => turnOf(await tracesOf(session)) !== undefined, queued('the child’s turn over OTLP'))
      .toBe(true);
    const trace = (await tracesOf(session)).find((t) => t.traceId === traceId)!;
    // The request's span is the root; the child's turn hangs under the send that queued it.
    expect(trace.roots.map((r) => r.name)).toEqual(['POST /api/chat']);
    const send = find(trace.roots[0]!.children, 'SQS.SendMessage')!;
    expect(send).toBeDefined();
    const turn = find(send.children, 'turn')!;
    expect(turn).toBeDefined();
    expect(turn.kind).toBe('consumer');
    expect(turn.attributes).toMatchObject({
      'switchboard.session.id': session,
      'switchboard.run.id': res.json.run_id,
      'switchboard.agent.id': 'slow',
    });
    // The turn's own AWS calls came with it, from the child.
    expect(turn.children.some((c) => c.name.startsWith('DynamoDB.'))).toBe(true);
  });
});
