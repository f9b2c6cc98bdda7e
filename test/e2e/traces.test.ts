import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/**
 * OpenTelemetry spans of the functions, in the sandbox, with an in-memory exporter: one trace per
 * turn from the host's request across the SQS hop to the worker's turn and its AWS calls.
 */
const exporter = new InMemorySpanExporter();
/** A processor whose endpoint is down: each flush fails, as an export to an unreachable endpoint does. */
let failedFlushes = 0;
const down: SpanProcessor = {
  onStart: () => {},
  onEnd: () => {},
  forceFlush: async () => {
    failedFlushes += 1;
    throw new Error('the OTLP endpoint is down');
  },
  shutdown: async () => {},
};
let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'echo' },
    invoke: async ({ message }) => ({ content: `echo: ${message}` }),
  });
  sandbox = await testSandbox({ app, traces: { processors: [new SimpleSpanProcessor({ exporter }), down] } });
});
afterAll(async () => {
  await sandbox?.close();
});

const spansOf = (traceId: string) =>
  exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('traces', () => {
  it('one trace per turn: the request, the SQS hop and the worker’s turn, each AWS call a client span', async () => {
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: 'traced-1', agent_id: 'echo', content: 'hi', wait_ms: 10_000 },
      { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } },
    );
    // Every flush failed (the endpoint is down): the request and the turn went on regardless.
    expect(res.status).toBe(200);
    expect(failedFlushes).toBeGreaterThan(0);
    await expect
      .poll(() => spansOf(traceId).some((s) => s.name === 'turn'), queued('the turn span'))
      .toBe(true);
    const spans = spansOf(traceId);
    const request = spans.find((s) => s.name === 'POST /api/chat')!;
    expect(request).toBeDefined();
    expect(parentOf(request)).toBe('b7ad6b7169203331');
    const send = spans.find((s) => s.name === 'SQS.SendMessage')!;
    expect(send).toBeDefined();
    const turn = spans.find((s) => s.name === 'turn')!;
    // The worker's turn continues the request's trace (the hop), under the span that queued it.
    expect(parentOf(turn)).toBe(send.spanContext().spanId);
    expect(turn.attributes['switchboard.session.id']).toBe('traced-1');
    expect(String(turn.attributes['switchboard.session.id'])).not.toContain('~');
    // Its AWS calls are its children.
    expect(
      spans.some((s) => s.name.startsWith('DynamoDB.') && parentOf(s) === turn.spanContext().spanId),
    ).toBe(true);
  });
});
