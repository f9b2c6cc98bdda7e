import { randomUUID } from 'node:crypto';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, type HostAgentDefinition } from '../../lib/index.ts';
import { type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { captureOutput } from '../support/capture.ts';
import { refOf, sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket, turnEnded } from '../support/ws-client.ts';

/** Values that must never reach a log line, each unique to this run of the file. */
const run = randomUUID().replace(/-/g, '');
const MARK = {
  token: `tok${run}`,
  content: `words${run}`,
  attachment: `filetext${run}`,
  hostContext: `viewdata${run}`,
  backendArgs: `backendargs${run}`,
  backendResult: `backendresult${run}`,
  hostToolArgs: `hosttoolargs${run}`,
  hostToolResult: `hosttoolresult${run}`,
  answer: `answer${run}`,
  malformed: `malformed${run}`,
  refusedToken: `refused${run}`,
  modelKey: `sk-${run}`,
};
const ATTACHMENT_TEXT = `The attached notes: ${MARK.attachment}`;
const ATTACHMENT_BASE64 = Buffer.from(ATTACHMENT_TEXT).toString('base64');

/** Everything written to stdout, stderr and the console while the file runs (no secret may be in it). */
let printed: ReturnType<typeof captureOutput>;

/** The spans of every function, with tracing on: they are held to the same rule as the log lines. */
const exporter = new InMemorySpanExporter();

/** What resolveAction was handed and what the agent read from the attachment: the markers got through. */
const seen: { attachment?: string; resolutions: unknown[] } = { resolutions: [] };

/**
 * Calls a backend tool and a host tool, then asks a question; its arguments, results and the answer
 * all carry markers. It also emits one malformed event, so a warning names the session for certain.
 */
const agent: HostAgentDefinition = {
  info: { id: 'marked' },
  tools: [{ name: 'search_notes', description: 'Search the notes' }],
  async invoke(input, { emit }) {
    const dataUri = String(input.attachments[0]?.data_uri ?? '');
    seen.attachment = Buffer.from(dataUri.slice(dataUri.indexOf(',') + 1), 'base64').toString('utf8');
    emit({ type: 'text', text: 'Looking. ' });
    emit({ type: 'tool_use', id: 'call_search', name: 'search_notes', args: { query: MARK.backendArgs } });
    emit({
      type: 'tool_result',
      id: 'call_search',
      name: 'search_notes',
      result: { hit: MARK.backendResult },
    });
    emit({ type: 'tool_use', id: 'call_pick', name: 'pick_note', args: { note: MARK.hostToolArgs } });
    // Not an event the runtime knows: it is ignored with a warning that must not echo it.
    emit({ type: 'text', text: { [MARK.malformed]: MARK.malformed } } as never);
    return {};
  },
  async resolveAction(input) {
    seen.resolutions.push(input.resolution);
    if (input.actionId === 'call_pick') {
      return {
        pendingActions: [{ id: 'req_which', type: 'user_question', questions: [{ question: 'Which one?' }] }],
      };
    }
    return { content: `Noted ${JSON.stringify(input.resolution.answers)}.` };
  },
};

const app = createSwitchboard();
app.registerHostAgent(agent);
const sid = sessionIds('logs');
let sandbox: Sandbox;
let host: TestSocket;
let model: ScriptedModel;

beforeAll(async () => {
  printed = captureOutput();
  // A model agent whose endpoint key is read from a secret (apiKeyFromSecret): the key reaches the
  // model, never a log line. The scripted model refuses any other key.
  model = await startScriptedModel({
    script: {
      rules: [
        { match: 'hello', on: 'user', reply: { text: 'Hello from the model.' } },
        // An endpoint that echoes the key it was sent in its error, as OpenAI does (in part).
        {
          match: 'leak',
          on: 'user',
          error: {
            status: 401,
            message: `Incorrect API key provided: ${MARK.modelKey}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      ],
    },
    apiKey: MARK.modelKey,
  });
  app.registerChatCompletionsAgent({
    info: { id: 'model' },
    baseURL: model.baseURL,
    apiKeyFromSecret: 'support/model-key',
    model: 'scripted-small',
  });
  sandbox = await testSandbox({
    app,
    modelSecrets: { 'support/model-key': MARK.modelKey },
    logLevel: 'DEBUG',
    traces: { processors: [new SimpleSpanProcessor({ exporter })] },
    tokens: (token) => (token === MARK.token ? { user: 'alice', tenant: 'acme' } : null),
  });
  host = await TestSocket.open(`${sandbox.wsUrl}?token=${MARK.token}`);
});

afterAll(async () => {
  await host?.close();
  await sandbox?.close();
  await model?.close();
  printed?.restore();
});

const ended = (runId: unknown) => turnEnded(runId);

/** A POST with the bearer token, over HTTP. */
async function post(path: string, body: unknown) {
  const res = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${MARK.token}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(json)).toBe(202);
  return json;
}

describe('logs', () => {
  it('hold no token, message, attachment, host context, tool argument, tool result, answer or endpoint key, even at DEBUG', async () => {
    const id = sid('turn');
    // The message, over the socket that connected with the token in its query string.
    const first = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'marked',
      content: `Please look at my notes, ${MARK.content}`,
      attachments: [{ dataUri: `data:text/plain;base64,${ATTACHMENT_BASE64}`, mediaType: 'text/plain' }],
      host_context: {
        version: 1,
        view: { name: 'notes', data: { secret: MARK.hostContext } },
        actions: [
          { name: 'pick_note', parameters: { type: 'object', properties: { note: { type: 'string' } } } },
        ],
      },
    });
    expect(first.type, JSON.stringify(first)).toBe('assistant:accepted');
    const paused = await host.waitFor(ended(first.run_id), 'the first turn to pause on the host tool');
    expect(paused.type).toBe('session.status_requires_action');

    // The host tool's result, as a continuation over HTTP with the token in Authorization.
    const cont = await post('/api/chat', {
      session_id: id,
      content: '',
      tool_call_id: 'call_pick',
      tool_result: { picked: MARK.hostToolResult },
    });
    const asked = await host.waitFor(ended(cont.run_id), 'the question');
    expect(asked.type).toBe('session.status_requires_action');

    // The answer to the question, over HTTP.
    const answered = await post(`/api/sessions/${id}/actions/req_which`, { answers: [MARK.answer] });
    const done = await host.waitFor(ended(answered.run_id), 'the last run');
    expect(done.type).toBe('session.status_idle');

    // The model agent's turn: its key was read from the secret and sent to the model.
    const modelTurn = await host.request({
      action: 'assistant_message',
      session_id: sid('model'),
      agent_id: 'model',
      content: 'hello model',
    });
    const modelEnd = await host.waitFor(ended(modelTurn.run_id), 'the model agent’s turn');
    expect(modelEnd.data).toMatchObject({ status: 'completed' });
    expect(model.requests.at(-1)?.status).toBe(200);

    // A model agent's turn whose endpoint answers 401 with the key in its message: logged redacted.
    const leakTurn = await host.request({
      action: 'assistant_message',
      session_id: sid('model-leak'),
      agent_id: 'model',
      content: 'leak the key',
    });
    const leakEnd = await host.waitFor(ended(leakTurn.run_id), 'the failed model turn');
    expect(leakEnd.data).toMatchObject({ status: 'error' });
    expect(model.requests.at(-1)?.status).toBe(401);

    // Every marker went through the runtime, so its absence from the logs means something.
    expect(seen.attachment).toBe(ATTACHMENT_TEXT);
    expect(JSON.stringify(seen.resolutions)).toContain(MARK.hostToolResult);
    expect(JSON.stringify(seen.resolutions)).toContain(MARK.answer);

    // A token the authoriser refuses, on both transports.
    await expect(TestSocket.open(`${sandbox.wsUrl}?token=${MARK.refusedToken}`)).rejects.toThrow(/403/);
    const refused = await fetch(`${sandbox.url}/api/sessions/${id}`, {
      headers: { authorization: `Bearer ${MARK.refusedToken}` },
    });
    expect(refused.status).toBe(403);

    const text = printed.chunks.join('\n');
    // The capture works: the warning about the malformed event names the session, and DEBUG is on.
    const lines = text.split('\n').filter((l) => l.includes(`"sessionId":"${refOf(id, 'alice', 'acme')}"`));
    expect(lines.some((l) => l.includes('Ignored a malformed event'))).toBe(true);
    expect(lines.some((l) => l.includes('"level":"DEBUG"') && l.includes('Claimed the run'))).toBe(true);
    expect(text).toContain('Incorrect API key provided: [redacted]');
    const markers: [string, string][] = [...Object.entries(MARK), ['attachment (base64)', ATTACHMENT_BASE64]];
    const leaks = markers.flatMap(([what, marker]) =>
      text
        .split('\n')
        .filter((l) => l.includes(marker))
        .map((l) => `${what}: ${l}`),
    );
    expect(leaks, 'log lines holding what must not be logged').toEqual([]);

    // Nor a span: its name, status, attributes, events and links hold ids, kinds and counts, never a
    // marker, and never a session ref (its owner scope stays inside Switchboard: `~` only appears in one).
    const spans = exporter.getFinishedSpans();
    expect(spans.some((s) => s.name === 'resolve')).toBe(true);
    const spanLeaks = spans.flatMap((s) =>
      [
        s.name,
        s.status.message ?? '',
        JSON.stringify(s.attributes),
        ...s.events.map((e) => `${e.name} ${JSON.stringify(e.attributes ?? {})}`),
        ...s.links.map((l) => JSON.stringify(l.attributes ?? {})),
      ]
        .filter((t) => t.includes('~') || markers.some(([, marker]) => t.includes(marker)))
        .map((t) => `${s.name}: ${t}`),
    );
    expect(spanLeaks, 'span texts holding what must not be recorded').toEqual([]);
  });

  it('names the invocation, session, run, request and agent on every line a turn writes', async () => {
    const id = sid('keys');
    const accepted = await host.request({
      action: 'assistant_message',
      session_id: id,
      agent_id: 'marked',
      content: 'hi',
    });
    expect(accepted.type, JSON.stringify(accepted)).toBe('assistant:accepted');
    await host.waitFor(ended(accepted.run_id), 'the turn to pause on the host tool');
    const session = refOf(id, 'alice', 'acme');
    const turnLines = () =>
      printed.chunks
        .join('\n')
        .split('\n')
        .filter((l) => l.startsWith('{"level"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.runId === accepted.run_id);
    // The run's last line follows the event that ends it: waited for, with a timeout.
    await expect
      .poll(() => turnLines().map((l) => l.message), queued('the last line of the turn'))
      .toContain('Finished the run');
    const lines = turnLines();
    expect(lines.map((l) => l.message)).toContain('Claimed the run');
    for (const line of lines) {
      expect(line, String(line.message)).toMatchObject({
        sessionId: session,
        runId: accepted.run_id,
        requestId: accepted.request_id,
        agentId: 'marked',
        function_request_id: expect.any(String),
      });
    }
  });
});
