import { request } from 'node:http';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/program.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { type SpanNode, TraceReceiver, type TurnTrace } from '../../sandbox/trace-receiver.ts';
import { tracesText } from '../../sandbox/trace-text.ts';
import { haveChromium, launchChromium, seriousViolations } from '../support/browser.ts';
import { cliAgainst } from '../support/cli.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import { findSpan } from '../support/span-tree.ts';
import { queued } from '../support/wait.ts';

/**
 * The sandbox's own OTLP receiver: the functions export to it with the OTLP/HTTP exporter, as they
 * would to X-Ray, and it keeps the same span tree an in-memory exporter sees; `inspect --trace`
 * prints it, and the inspector page shows it.
 */
const memory = new InMemorySpanExporter();
let sandbox: Sandbox;

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent({
    info: { id: 'echo' },
    invoke: async ({ message }) => ({ content: `echo: ${message}` }),
  });
  // Both: the test's in-memory exporter, and the export over OTLP to the sandbox's receiver.
  sandbox = await testSandbox({
    app,
    traces: { processors: [new SimpleSpanProcessor({ exporter: memory })], receiver: true },
  });
});
afterAll(async () => {
  await sandbox?.close();
});

/** A tree as names and ids only: what must be the same on both sides. */
type Shape = { name: string; spanId: string; children: Shape[] };
const shape = (node: SpanNode): Shape => ({
  name: node.name,
  spanId: node.spanId,
  children: node.children.map(shape),
});

/** The in-memory exporter's spans of one trace as a tree, built the same way. */
function memoryTree(traceId: string): Shape[] {
  const spans = memory.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const build = (span: ReadableSpan): Shape => ({
    name: span.name,
    spanId: span.spanContext().spanId,
    children: spans
      .filter((s) => s.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
      .map(build),
  });
  return spans.filter((s) => !ids.has(s.parentSpanContext?.spanId ?? '')).map(build);
}

async function tracesOf(session: string): Promise<TurnTrace[]> {
  const res = await fetch(`${sandbox.url}/sandbox/traces?session=${encodeURIComponent(session)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { traces: TurnTrace[] }).traces;
}

/** A raw GET naming `host`, as a page whose name was rebound to this machine would send it. */
function rawGet(path: string, host: string) {
  const url = new URL(sandbox.url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const out = request(
      { host: url.hostname, port: url.port, path, headers: { host }, agent: false, setHost: false },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    out.on('error', reject);
    out.end();
  });
}

const find = findSpan;

describe('the sandbox’s OTLP receiver', () => {
  const session = 'receiver-1';
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('keeps the same span tree over OTLP as an in-memory exporter: request → SQS.SendMessage → turn', async () => {
    const res = await api(
      sandbox.url,
      'POST',
      '/api/chat',
      { session_id: session, agent_id: 'echo', content: 'hi', wait_ms: 10_000 },
      { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
    );
    expect(res.status).toBe(200);
    // The worker's invocation flushes its batch as it ends: the turn arrives with its AWS calls.
    await expect
      .poll(
        async () => (await tracesOf(session)).some((t) => t.roots.some((r) => find([r], 'turn'))),
        queued('the turn over OTLP'),
      )
      .toBe(true);
    const [trace] = await tracesOf(session);
    expect(trace).toMatchObject({ traceId, sessionId: session, runId: expect.any(String) });
    // The host's own span is not in the trace: the request span is its root.
    expect(trace!.roots.map((r) => r.name)).toEqual(['POST /api/chat']);
    const request = trace!.roots[0]!;
    expect(request.parentSpanId).toBe('00f067aa0ba902b7');
    expect(request.service).toBeDefined();
    const send = find(request.children, 'SQS.SendMessage')!;
    expect(send.kind).toBe('producer');
    const turn = find(send.children, 'turn')!;
    expect(turn.kind).toBe('consumer');
    expect(turn.attributes['switchboard.session.id']).toBe(session);
    expect(turn.children.some((c) => c.name.startsWith('DynamoDB.'))).toBe(true);
    expect(turn.durationMs).toBeGreaterThan(0);
    // Span for span the tree the in-memory exporter saw.
    await expect.poll(() => memoryTree(traceId), queued('the same tree')).toEqual(trace!.roots.map(shape));
  });

  it('lists the sessions it holds traces of, and nothing for a session it has none of', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/traces`);
    const { sessions } = (await res.json()) as { sessions: { sessionId: string; traces: number }[] };
    expect(sessions).toContainEqual(expect.objectContaining({ sessionId: session, traces: 1 }));
    expect(await tracesOf('nobody')).toEqual([]);
  });

  it('`inspect --trace` prints each turn’s span tree, indented, with durations', async () => {
    const { code, stdout, stderr } = await cliAgainst(sandbox.url, 'inspect', session, '--trace');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^turn 1 of session ${session}: trace ${traceId}, run \\S+`));
    const depth = (name: string) => {
      const line = lines.find((l) => l.trimStart().startsWith(`${name}  `));
      expect(line, name).toBeDefined();
      expect(line).toMatch(/ \d+(\.\d+)? m?s/);
      return line!.length - line!.trimStart().length;
    };
    expect(depth('POST /api/chat')).toBe(2);
    expect(depth('SQS.SendMessage')).toBe(4);
    expect(depth('turn')).toBe(6);
    const json = await cliAgainst(sandbox.url, 'inspect', session, '--trace', '--json');
    expect((json.json() as { traces: TurnTrace[] }).traces[0]?.traceId).toBe(traceId);
  });

  it('`inspect --trace` against a deployed stack says where its traces are read', async () => {
    let stderr = '';
    const code = await runCli(['inspect', session, '--trace', '--stack', 'Assistant'], {
      stdout: { write: () => true },
      stderr: { write: (text: string) => (stderr += text) },
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/X-Ray/);
    expect(stderr).toMatch(/OTLP backend/);
  });

  it('serves the inspector page, and refuses it (and the traces) to a foreign Host', async () => {
    const host = `localhost:${new URL(sandbox.url).port}`;
    const page = await rawGet('/sandbox/inspect', host);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Switchboard inspector');
    expect(page.body).toContain('/sandbox/traces');
    for (const path of ['/sandbox/inspect', `/sandbox/traces?session=${session}`]) {
      const refused = await rawGet(path, `attacker.example:${new URL(sandbox.url).port}`);
      expect(refused.status, path).toBe(403);
      expect(refused.body).not.toContain(session);
    }
  });

  it.skipIf(!haveChromium)(
    'the inspector page shows the session, its turn’s span tree and its events',
    async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        await page.goto(`${sandbox.url}/sandbox/inspect?session=${session}`);
        const turn = page.locator('#turn');
        await turn.getByText('SQS.SendMessage', { exact: true }).waitFor();
        await page.locator('#sessions').getByText(session).waitFor();
        await page
          .locator('#turns')
          .getByText(/^Turn 1 · /)
          .waitFor();
        for (const name of ['POST /api/chat', 'turn'])
          await turn.getByText(name, { exact: true }).first().waitFor();
        await turn.getByText(/session\.status_idle/).waitFor();
        await expect(turn.textContent()).resolves.toContain('none open');
        expect(await seriousViolations(page)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    },
  );

  it('takes OTLP/JSON only: protobuf is answered 415', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(res.status).toBe(415);
  });
});

describe('the receiver, given what the OTLP/JSON serialiser sends', () => {
  /** Spans of a model call and a tool under a turn, as the SDK makes them, serialised as the exporter does. */
  function exportOf(sessionId: string): Uint8Array {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const tracer = provider.getTracer('test');
    // A trace of its own, whatever context the sandbox above left current.
    const turn = tracer.startSpan(
      'turn',
      { attributes: { 'switchboard.session.id': sessionId } },
      ROOT_CONTEXT,
    );
    const under = trace.setSpan(ROOT_CONTEXT, turn);
    const chat = tracer.startSpan(
      'chat gpt-test',
      {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-test',
          'gen_ai.usage.input_tokens': 120,
          'gen_ai.usage.output_tokens': 45,
          'gen_ai.response.finish_reasons': ['tool_calls'],
        },
      },
      under,
    );
    chat.end();
    const tool = tracer.startSpan(
      'execute_tool lookup',
      { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup' } },
      under,
    );
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'Error: not found' });
    tool.end();
    turn.addEvent('switchboard.cancel_requested');
    turn.end();
    return JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())!;
  }

  it('decodes attributes, nests the spans, and prints tokens and tool outcomes', () => {
    const receiver = new TraceReceiver();
    const body = JSON.parse(new TextDecoder().decode(exportOf('s-1')));
    expect(receiver.receive(body)).toEqual({});
    const [trace] = receiver.traces('s-1');
    expect(trace?.roots.map((r) => r.name)).toEqual(['turn']);
    const chat = find(trace!.roots, 'chat gpt-test')!;
    expect(chat.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    const text = tracesText('s-1', receiver.traces('s-1'));
    expect(text).toMatch(
      /^ {4}chat gpt-test {2}\S+ m?s {2}model gpt-test · tokens 120 in \/ 45 out · finish tool_calls$/m,
    );
    expect(text).toMatch(/^ {4}execute_tool lookup .*tool lookup · failed: Error: not found$/m);
    expect(text).toMatch(/^ {4}· switchboard.cancel_requested at \+/m);
  });

  it('keeps the last traces only', () => {
    const receiver = new TraceReceiver({ maxTraces: 2 });
    for (const id of ['a', 'b', 'c']) receiver.receive(JSON.parse(new TextDecoder().decode(exportOf(id))));
    expect(
      receiver
        .sessions()
        .map((s) => s.sessionId)
        .sort(),
    ).toEqual(['b', 'c']);
    // A trace of no session goes before the older traces of sessions.
    const reads = JSON.parse(
      new TextDecoder().decode(exportOf('d')).replaceAll('switchboard.session.id', 'other'),
    );
    receiver.receive(reads);
    receiver.receive(JSON.parse(new TextDecoder().decode(exportOf('e'))));
    expect(
      receiver
        .sessions()
        .map((s) => s.sessionId)
        .sort(),
    ).toEqual(['c', 'e']);
    const bytes = new TraceReceiver({ maxBytes: 1 });
    for (const id of ['a', 'b']) bytes.receive(JSON.parse(new TextDecoder().decode(exportOf(id))));
    expect(bytes.sessions().map((s) => s.sessionId)).toEqual(['b']);
  });
});
