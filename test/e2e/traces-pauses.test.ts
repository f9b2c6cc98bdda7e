import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { linksTo } from '../../lib/telemetry/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

/**
 * The spans of a pause and of what answers it, in the sandbox with an in-memory exporter: the turn
 * that asks, the request that answers, the `resolve` turn (on the answer's trace, linked to the turn
 * that asked), a lapse's turn, a cancel on the turn it stops, and no secret or owner scope anywhere.
 */
const exporter = new InMemorySpanExporter();
let sandbox: Sandbox;
const sid = sessionIds('tp');

/** Values that must never reach a span, unique to this run of the file. */
const run = randomUUID().replace(/-/g, '');
const SECRET = { key: `sk-${run}`, bearer: `bearertok${run}` };

const WIRE = { id: 'req_wire', type: 'tool_approval' as const, toolName: 'wire_money', args: { amount: 5 } };

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'approver' },
    async invoke({ message }, { emit }) {
      if (message === 'lapse')
        return {
          pendingActions: [
            { ...WIRE, id: 'req_late', expiresAt: new Date(Date.now() - 1_000).toISOString() },
          ],
        };
      // An agent's failure that quotes the secret: the turn fails, its spans do not repeat it.
      if (message.startsWith('throw')) throw new Error(`Refused: ${message}`);
      if (message.includes(SECRET.key)) {
        // What a careless agent does with a secret it was sent: everything the runtime records sees it.
        emit({ type: 'text', text: `Using ${message}. ` });
        emit({ type: 'tool_use', id: 'call_leak', name: 'store_key', args: { key: SECRET.key } });
        return {
          pendingActions: [{ ...WIRE, id: 'req_leak', args: { key: SECRET.key, auth: SECRET.bearer } }],
        };
      }
      return { content: 'Wiring needs a yes.', pendingActions: [WIRE] };
    },
    async resolveAction({ actionId, resolution }) {
      return { content: `decided ${actionId}: ${JSON.stringify(resolution)}` };
    },
  });
  app.registerHostAgent({
    info: { id: 'streamer' },
    async invoke(_input, { emit, signal }) {
      emit({ type: 'text', text: 'Counting: ' });
      // Streams until it is stopped, however long that takes.
      while (!signal.aborted) {
        emit({ type: 'text', text: '.' });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return {};
    },
  });
  // The tests run the sweep themselves: its timer must not lapse a request first.
  sandbox = await testSandbox({
    app,
    sweepPeriodMs: 3_600_000,
    traces: { processors: [new SimpleSpanProcessor({ exporter })] },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

const spans = () => exporter.getFinishedSpans();
const spansOf = (traceId: string) => spans().filter((s) => s.spanContext().traceId === traceId);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const ofRun = (runId: unknown) => (s: ReadableSpan) => s.attributes['switchboard.run.id'] === runId;
/** A trace id of the host's own, for a request sent with `traceparent`. */
const newTraceId = () => randomUUID().replace(/-/g, '');
const traceparent = (traceId: string) => `00-${traceId}-${traceId.slice(0, 16)}-01`;

/** Sends a message with the host's trace, waits for its run's turn span; returns it and the run id. */
async function turn(sessionId: string, agentId: string, content: string) {
  const traceId = newTraceId();
  const res = await api(
    sandbox.url,
    'POST',
    '/api/chat',
    { session_id: sessionId, agent_id: agentId, content },
    { headers: { traceparent: traceparent(traceId) } },
  );
  expect(res.status, res.text).toBe(202);
  const runId = res.json.run_id;
  await expect.poll(() => spansOf(traceId).some(ofRun(runId)), queued('the turn span')).toBe(true);
  return { traceId, runId, span: spansOf(traceId).find(ofRun(runId))! };
}

describe('a pause and its continuation', () => {
  it('links the resolve turn to the turn that asked, on the trace of the request that answered', async () => {
    const id = sid('approve');
    const asked = await turn(id, 'approver', 'wire it');
    expect(asked.span.name).toBe('turn');

    const answerTrace = newTraceId();
    const res = await api(
      sandbox.url,
      'POST',
      `/api/sessions/${id}/actions/${WIRE.id}`,
      { decision: 'approve' },
      { headers: { traceparent: traceparent(answerTrace) } },
    );
    expect(res.status, res.text).toBe(202);
    const resolveRun = res.json.run_id;
    await expect
      .poll(() => spansOf(answerTrace).some(ofRun(resolveRun)), queued('the resolve turn'))
      .toBe(true);

    const answer = spansOf(answerTrace);
    const resolve = answer.find(ofRun(resolveRun))!;
    expect(resolve.name).toBe('resolve');
    // The approving request's trace reaches the resolve turn, through the SQS hop it queued.
    const request = answer.find((s) => s.name === 'POST /api/sessions/{id}/actions/{actionId}')!;
    expect(request).toBeDefined();
    expect(parentOf(request)).toBe(answerTrace.slice(0, 16));
    const send = answer.find(
      (s) => s.name === 'SQS.SendMessage' && parentOf(s) === request.spanContext().spanId,
    )!;
    expect(send).toBeDefined();
    expect(parentOf(resolve)).toBe(send.spanContext().spanId);
    // The resolve turn links the turn that asked: one walks from the approval to the decision.
    const link = resolve.links.find((l) => l.context.spanId === asked.span.spanContext().spanId);
    expect(link?.context.traceId).toBe(asked.traceId);
    expect(link?.attributes).toMatchObject({ 'switchboard.link': 'paused_turn' });
  });

  it('links the resolve turn of an answer sent over the WebSocket, in that message’s trace', async () => {
    const id = sid('ws');
    const asked = await turn(id, 'approver', 'wire it');
    const socket = await TestSocket.open(sandbox.wsUrl);
    try {
      const ok = await socket.request({
        action: 'assistant_resolve_action',
        session_id: id,
        action_id: WIRE.id,
        decision: 'deny',
      });
      expect(ok).toMatchObject({ type: 'assistant:resolved', status: 'queued' });
      await expect.poll(() => spans().some(ofRun(ok.run_id)), queued('the resolve turn')).toBe(true);
      const resolve = spans().find(ofRun(ok.run_id))!;
      expect(resolve.name).toBe('resolve');
      expect(resolve.spanContext().traceId).not.toBe(asked.traceId);
      // Under the SQS send of the socket message's invocation, and linked to the turn that asked.
      const send = spans().find((s) => s.spanContext().spanId === parentOf(resolve));
      expect(send?.name).toBe('SQS.SendMessage');
      expect(resolve.links.map((l) => l.context.spanId)).toContain(asked.span.spanContext().spanId);
    } finally {
      await socket.close();
    }
  });

  it('links the turn the sweep runs for a lapsed request (a denial) to the turn that asked', async () => {
    const id = sid('lapse');
    const asked = await turn(id, 'approver', 'lapse');
    await sandbox.sweep();
    const lapse = () =>
      spans().find(
        (s) =>
          // `resolve` under hitl.onTimeout deny (the default, with a resolveAction), else `lapse`.
          (s.name === 'resolve' || s.name === 'lapse') &&
          s.attributes['switchboard.session.id'] === id &&
          s.links.some((l) => l.context.spanId === asked.span.spanContext().spanId),
      );
    await expect.poll(() => lapse() !== undefined, queued('the lapse turn')).toBe(true);
  });
});

describe('span events', () => {
  it('puts the cancel on the turn it stops, with who asked, and on the request that asked', async () => {
    const id = sid('cancel');
    const traceId = newTraceId();
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: id, agent_id: 'streamer', content: 'count' },
      { headers: { traceparent: traceparent(traceId) } },
    );
    expect(res.status, res.text).toBe(202);
    // Mid-stream: the agent has emitted text when the cancel comes.
    await expect
      .poll(async () => {
        const events = await api(sandbox.url, 'GET', `/api/sessions/${id}/events?after=0&limit=1000`);
        return (events.json.events as { type: string }[]).some((e) => e.type === 'agent.message.delta');
      }, queued('the stream'))
      .toBe(true);
    const cancel = await api(sandbox.url, 'POST', `/api/sessions/${id}/cancel`);
    expect(cancel.status, cancel.text).toBe(202);
    await expect
      .poll(() => spansOf(traceId).some(ofRun(res.json.run_id)), queued('the cancelled turn'))
      .toBe(true);
    const span = spansOf(traceId).find(ofRun(res.json.run_id))!;
    const event = span.events.find((e) => e.name === 'switchboard.cancel');
    expect(event?.attributes).toMatchObject({
      'switchboard.cancel.reason': 'user',
      'switchboard.cancel.by': 'user',
    });
    const request = spans().find((s) => s.events.some((e) => e.name === 'switchboard.cancel.requested'));
    expect(request?.name).toBe('POST /api/sessions/{id}/cancel');
  });
});

describe('what spans never carry', () => {
  it('holds no key, token or owner scope in any span’s name, attributes, events, links or status', async () => {
    const id = sid('secret');
    const asked = await turn(
      id,
      'approver',
      `here is ${SECRET.key} and Authorization: Bearer ${SECRET.bearer}`,
    );
    // The request that answers carries the secrets too, in its body.
    const res = await api(sandbox.url, 'POST', `/api/sessions/${id}/actions/req_leak`, {
      decision: 'approve',
      comment: `${SECRET.key} ${SECRET.bearer}`,
    });
    expect(res.status, res.text).toBe(202);
    await expect.poll(() => spans().some(ofRun(res.json.run_id)), queued('the resolve turn')).toBe(true);
    const failed = await turn(sid('secret'), 'approver', `throw ${SECRET.key} Bearer ${SECRET.bearer}`);
    expect(failed.span.name).toBe('turn');

    const scopes = [refOf(id), refOf(sid('other'))].map((ref) => ref.slice(0, ref.indexOf('~')));
    const leaks = spans().flatMap((s) => {
      const texts = [
        s.name,
        s.status.message ?? '',
        JSON.stringify(s.attributes),
        ...s.events.map((e) => `${e.name} ${JSON.stringify(e.attributes ?? {})}`),
        ...s.links.map((l) => JSON.stringify(l.attributes ?? {})),
      ];
      return texts
        .filter(
          (t) =>
            t.includes(SECRET.key) ||
            t.includes(SECRET.bearer) ||
            t.includes('~') ||
            scopes.some((scope) => scope.length > 0 && t.includes(scope)),
        )
        .map((t) => `${s.name}: ${t}`);
    });
    expect(spans().length).toBeGreaterThan(10);
    expect(leaks, 'span texts holding a secret or an owner scope').toEqual([]);
    // The session as the host names it.
    expect(asked.span.attributes['switchboard.session.id']).toBe(id);
  });
});

describe('links to stored span contexts', () => {
  it('reads a stored traceparent, once, and leaves out none, an empty one or a malformed one', () => {
    const stored = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const links = linksTo([stored, stored, undefined, '', 'not-a-traceparent', `${stored}x`], {
      'switchboard.link': 'paused_turn',
    });
    expect(links).toEqual([
      {
        context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 },
        attributes: { 'switchboard.link': 'paused_turn' },
      },
    ]);
    // All-zero ids name no span.
    expect(linksTo([`00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`])).toEqual([]);
  });
});
