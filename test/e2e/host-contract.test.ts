import { Logger } from '@aws-lambda-powertools/logger';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSwitchboard } from '../../lib/index.ts';
import { getRun } from '../../lib/store/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { recordingAgent } from '../support/recorder.ts';
import { api, refOf, sessionIds, sha256Of, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';
import { TestSocket } from '../support/ws-client.ts';

let sandbox: Sandbox;
let host: TestSocket;
const recorder = recordingAgent('recorder', [
  { name: 'search_issues', description: 'Search' },
  { name: 'summarize' },
]);
const sid = sessionIds('hc');

const SEED_CONTEXT = {
  version: 1,
  host: { name: 'web-dashboard', kind: 'browser', version: '2.1' },
  view: {
    name: 'tasks',
    description: 'The issue list, filtered to open bugs.',
    data: { issues: [{ number: 42, title: 'Fix login' }] },
    state: { filters: { label: 'bug' } },
  },
  navigation: [{ name: 'agents', description: 'Running agents' }],
  actions: [
    {
      name: 'select_issue',
      description: 'Select an issue in the list.',
      parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
    },
  ],
  background: { agents: { state: 'idle', summary: { count: 3 } } },
  captured_at: '2020-09-05T10:00:00Z',
  extensions: { tenant: 'acme' },
};

beforeAll(async () => {
  const app = createSwitchboard();
  app.registerHostAgent(recorder.definition);
  sandbox = await testSandbox({
    app,
    settings: {
      tools: {
        hostTools: [
          {
            name: 'open_page',
            description: 'Go to a page',
            parameters: { type: 'object', properties: { name: { type: 'string' } } },
          },
        ],
        pageScopes: { tasks: ['search_issues'] },
      },
    },
  });
  host = await TestSocket.open(sandbox.wsUrl);
});

afterAll(async () => {
  await host?.close();
  await sandbox?.close();
});

/** Sends a message over HTTP; resolves with the turn's recorded input once the agent has run. */
async function send(body: Record<string, unknown>, turn = 1) {
  const sessionId = String(body.session_id ?? body.sessionId);
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    agent_id: 'recorder',
    content: 'hello',
    ...body,
  });
  expect(res.status, res.text).toBe(202);
  return (await recorder.turns(sessionId, turn))[turn - 1]!;
}

/** Sends the same bad body over both transports: a 422 on HTTP and a validation frame on the socket, at `path`. */
async function rejectedOnBoth(extra: Record<string, unknown>, path: (string | number)[], message?: RegExp) {
  const body = { session_id: sid('bad'), agent_id: 'recorder', content: 'x', ...extra };
  const http = await api(sandbox.url, 'POST', '/api/chat', body);
  expect(http.status, http.text).toBe(422);
  const issues = (http.json.error as { issues: { path: unknown[]; message: string }[] }).issues;
  expect(issues.map((i) => i.path)).toContainEqual(path);
  if (message)
    expect(issues.find((i) => JSON.stringify(i.path) === JSON.stringify(path))?.message).toMatch(message);
  const frame = await host.request({ action: 'assistant_message', ...body });
  expect(frame.type).toBe('assistant:error');
  const error = frame.error as { type: string; issues: { path: unknown[] }[] };
  expect(error.type).toBe('validation');
  expect(error.issues.map((i) => i.path)).toContainEqual(path);
  expect((await api(sandbox.url, 'GET', `/api/sessions/${body.session_id}`)).status).toBe(404);
}

const ctx = (over: Record<string, unknown>) => ({ host_context: { ...SEED_CONTEXT, ...over } });

describe('host_context: the schema', () => {
  it('accepts the seed example as it is', async () => {
    const turn = await send({ session_id: sid('seed'), host_context: SEED_CONTEXT });
    expect(turn.input.hostContext).toEqual(SEED_CONTEXT);
  });

  it('rejects a version other than 1 with a message naming the supported version', async () => {
    await rejectedOnBoth(ctx({ version: 2 }), ['host_context', 'version'], /version 1/);
    await rejectedOnBoth(ctx({ version: '1' }), ['host_context', 'version'], /version 1/);
  });

  it('rejects a host.kind outside browser, mobile, desktop, terminal, service, other', async () => {
    await rejectedOnBoth(ctx({ host: { name: 'w', kind: 'watch' } }), ['host_context', 'host', 'kind']);
  });

  it('requires view.name within view', async () => {
    await rejectedOnBoth(ctx({ view: { description: 'no name' } }), ['host_context', 'view', 'name']);
  });

  it('accepts page as an alias of view, and refuses both at once', async () => {
    const { view, ...rest } = SEED_CONTEXT;
    const turn = await send({ session_id: sid('page'), host_context: { ...rest, page: view } });
    expect(turn.input.hostContext?.view).toEqual(view);
    await rejectedOnBoth(ctx({ page: view }), ['host_context', 'page']);
  });

  it('requires a name for every navigation target', async () => {
    await rejectedOnBoth(ctx({ navigation: [{ description: 'nameless' }] }), [
      'host_context',
      'navigation',
      0,
      'name',
    ]);
  });

  it('holds action names to the tool-name rules and refuses a name declared twice', async () => {
    await rejectedOnBoth(ctx({ actions: [{ name: 'select issue', parameters: { type: 'object' } }] }), [
      'host_context',
      'actions',
      0,
      'name',
    ]);
    const twice = { name: 'a', parameters: { type: 'object' } };
    await rejectedOnBoth(ctx({ actions: [twice, twice] }), ['host_context', 'actions', 1, 'name']);
  });

  it('requires action parameters to be a JSON schema of type object', async () => {
    for (const parameters of [
      { type: 'string' },
      'object',
      { type: 'object', properties: { x: { type: 'nonsense' } } },
      undefined,
    ]) {
      await rejectedOnBoth(ctx({ actions: [{ name: 'a', parameters }] }), [
        'host_context',
        'actions',
        0,
        'parameters',
      ]);
    }
  });

  it('rejects an unknown field anywhere, naming its path', async () => {
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ colour: 1 }, ['host_context', 'colour']],
      [{ host: { name: 'w', os: 'x' } }, ['host_context', 'host', 'os']],
      [{ view: { name: 'v', title: 't' } }, ['host_context', 'view', 'title']],
      [{ navigation: [{ name: 'n', url: '/' }] }, ['host_context', 'navigation', 0, 'url']],
      [
        { actions: [{ name: 'a', parameters: { type: 'object' }, strict: true }] },
        ['host_context', 'actions', 0, 'strict'],
      ],
      [
        { attachments: [{ url: 'https://example.com/a.png', alt: 'x' }] },
        ['host_context', 'attachments', 0, 'alt'],
      ],
      [
        { background: { jobs: { state: 'busy', progress: 1 } } },
        ['host_context', 'background', 'jobs', 'progress'],
      ],
    ];
    for (const [over, path] of cases) await rejectedOnBoth(ctx(over), path);
    await rejectedOnBoth({ hostContxt: {} }, ['hostContxt']);
  });

  it('enforces the limits: 32,000 characters of view.data + view.state + extensions, 50 navigation targets, 32 actions, 16 attachments', async () => {
    const third = 'x'.repeat(10_700);
    await rejectedOnBoth(
      ctx({ view: { name: 'v', data: { a: third }, state: { b: third } }, extensions: { c: third } }),
      ['host_context', 'view', 'data'],
    );
    const nav = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `n${i}` }));
    const actions = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ name: `a${i}`, parameters: { type: 'object' } }));
    const attachments = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ url: `https://example.com/${i}.png` }));
    await rejectedOnBoth(ctx({ navigation: nav(51) }), ['host_context', 'navigation']);
    await rejectedOnBoth(ctx({ actions: actions(33) }), ['host_context', 'actions']);
    await rejectedOnBoth(ctx({ attachments: attachments(17) }), ['host_context', 'attachments']);
    const atLimits = await send({
      session_id: sid('limits'),
      host_context: {
        view: { name: 'v', data: { a: 'y'.repeat(31_000) } },
        navigation: nav(50),
        actions: actions(32),
        attachments: attachments(16),
      },
    });
    expect(atLimits.input.hostContext?.navigation).toHaveLength(50);
  });

  it('takes camelCase or snake_case contract names, and passes the host’s own keys through verbatim', async () => {
    const turn = await send({
      sessionId: sid('camel'),
      content: 'hi',
      hostContext: {
        view: {
          name: 'v',
          data: { someKey: 1, 'with space': 2, capturedAt: 3 },
          state: { dataUri: 'kept', nested: { mediaType: 'x' } },
        },
        capturedAt: '2026-01-01T00:00:00Z',
        extensions: { tenantId: 'acme', view: 'mine' },
        background: { jobRunner: { state: 'idle', summary: { lastRunAt: 'now' } } },
        actions: [
          { name: 'pick', parameters: { type: 'object', properties: { itemId: { type: 'string' } } } },
        ],
        attachments: [{ dataUri: 'data:text/plain;base64,aGk=', mediaType: 'text/plain' }],
      },
    });
    const context = turn.input.hostContext!;
    expect(context.captured_at).toBe('2026-01-01T00:00:00Z');
    expect(context.view?.data).toEqual({ someKey: 1, 'with space': 2, capturedAt: 3 });
    expect(context.view?.state).toEqual({ dataUri: 'kept', nested: { mediaType: 'x' } });
    expect(context.extensions).toEqual({ tenantId: 'acme', view: 'mine' });
    expect(context.background).toEqual({ jobRunner: { state: 'idle', summary: { lastRunAt: 'now' } } });
    expect(context.actions?.[0]?.parameters).toEqual({
      type: 'object',
      properties: { itemId: { type: 'string' } },
    });
    expect(turn.input.attachments[0]).toMatchObject({
      data_uri: 'data:text/plain;base64,aGk=',
      media_type: 'text/plain',
    });
  });

  it('names a camelCase field that fails as the host spelled it', async () => {
    await rejectedOnBoth({ hostContext: { capturedAt: 5 } }, ['hostContext', 'capturedAt']);
  });
});

describe('host_context: storage and reuse', () => {
  it('stores the validated snake_case form on the session and reuses it for a later message that carries none', async () => {
    const sessionId = sid('reuse');
    await send({
      session_id: sessionId,
      hostContext: { ...SEED_CONTEXT, captured_at: undefined, capturedAt: 'then' },
    });
    const stored = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}`)).json.host_context;
    expect(stored).toEqual({ ...SEED_CONTEXT, captured_at: 'then' });
    const second = await send({ session_id: sessionId, content: 'again' }, 2);
    expect(second.input.hostContext).toEqual(stored);
    expect(second.input.prompt.startsWith('<host_context>')).toBe(true);
  });

  it('takes host_context with assistant_join_session, for the messages that follow', async () => {
    const sessionId = sid('join');
    await send({ session_id: sessionId });
    const joined = await host.request({
      action: 'assistant_join_session',
      session_id: sessionId,
      host_context: { view: { name: 'joined-view' } },
    });
    expect(joined.type).toBe('assistant:joined');
    const turn = await send({ session_id: sessionId, content: 'after join' }, 2);
    expect(turn.input.hostContext?.view?.name).toBe('joined-view');
    const bad = await host.request({
      action: 'assistant_join_session',
      session_id: sessionId,
      host_context: { view: {} },
    });
    expect(bad).toMatchObject({
      type: 'assistant:error',
      error: { type: 'validation', path: ['host_context', 'view', 'name'] },
    });
  });
});

describe('host_context: what the agent receives', () => {
  it('gets the context as validated data and as a <host_context> block at the start of the user message', async () => {
    const turn = await send({
      session_id: sid('render'),
      host_context: SEED_CONTEXT,
      content: 'Which bug first?',
    });
    const { prompt } = turn.input;
    expect(turn.input.message).toBe('Which bug first?');
    expect(prompt.startsWith('<host_context>\n')).toBe(true);
    expect(prompt.endsWith('</host_context>\n\nWhich bug first?')).toBe(true);
    expect(prompt).toContain('Host: web-dashboard (browser, version 2.1)');
    expect(prompt).toContain('View: tasks - The issue list, filtered to open bugs.');
    expect(prompt).toContain('View data:\n- issues: [{"number":42,"title":"Fix login"}]');
    expect(prompt).toContain('View state: {"filters":{"label":"bug"}}');
    expect(prompt).toContain('Background: agents: idle {"count":3}');
    expect(prompt).toContain('Extensions: {"tenant":"acme"}');
    // Six years old, shown exactly as given: no age wording, nothing rejected for age.
    expect(prompt).toContain('Captured at: 2020-09-05T10:00:00Z\n');
    expect(prompt).not.toMatch(/\bago\b|stale|old/i);
  });

  it('keeps an earlier message’s stored bytes and block when the context changes later', async () => {
    const sessionId = sid('frozen');
    const first = await send({ session_id: sessionId, host_context: SEED_CONTEXT });
    // The first turn's answer is stored once its run has ended.
    await expect
      .poll(
        async () =>
          ((await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`)).json.messages as unknown[])
            .length,
        queued('the first turn’s answer to be stored'),
      )
      .toBe(2);
    const before = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`)).text;
    const second = await send(
      { session_id: sessionId, host_context: { view: { name: 'settings' } }, content: 'next' },
      2,
    );
    const after = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`)).json
      .messages as unknown[];
    expect(JSON.stringify(after.slice(0, 2))).toBe(
      JSON.stringify((JSON.parse(before) as { messages: unknown[] }).messages),
    );
    expect(second.input.history[0]?.prompt).toBe(first.input.prompt);
    expect(second.input.prompt).toContain('View: settings');
  });

  it('with no context: no host section, and every backend tool', async () => {
    const turn = await send({ session_id: sid('none'), content: 'plain' });
    expect(turn.input.hostContext).toBeNull();
    expect(turn.input.prompt).toBe('plain');
    expect(turn.input.tools.backend.map((t) => t.name)).toEqual(['search_issues', 'summarize']);
  });

  it('accepts a context without view, as a service sends it', async () => {
    const turn = await send({
      session_id: sid('service'),
      host_context: {
        host: { name: 'nightly', kind: 'service' },
        actions: [{ name: 'file_report', parameters: { type: 'object' } }],
        extensions: { job: 7 },
      },
    });
    expect(turn.input.prompt).toContain('Host: nightly (service)');
    expect(turn.input.prompt).not.toContain('View:');
    expect(turn.input.tools.host.map((t) => t.name)).toContain('file_report');
  });
});

describe('attachments', () => {
  const A = { url: 'https://example.com/a.png' };
  const B = { kind: 'document', url: 'https://example.com/b.pdf', name: 'b' };
  const C = { kind: 'text', text: 'some notes' };

  it('puts the message’s own first, then those in host_context, dropping duplicates', async () => {
    const turn = await send({
      session_id: sid('order'),
      attachments: [A, B],
      host_context: { attachments: [{ ...B }, C] },
    });
    expect(turn.input.attachments.map((a) => a.url ?? a.text)).toEqual([A.url, B.url, C.text]);
  });

  it('defaults kind to image and purpose to reference', async () => {
    const turn = await send({ session_id: sid('defaults'), attachments: [A] });
    expect(turn.input.attachments).toEqual([{ kind: 'image', purpose: 'reference', url: A.url }]);
  });

  it('requires exactly one of data_uri, url, text or file_id, and rejects a malformed attachment', async () => {
    await rejectedOnBoth({ attachments: [{ kind: 'image' }] }, ['attachments', 0]);
    await rejectedOnBoth({ attachments: [{ url: A.url, text: 'x' }] }, ['attachments', 0, 'text']);
    await rejectedOnBoth({ attachments: [{ data_uri: 'not-a-data-uri' }] }, ['attachments', 0, 'data_uri']);
    await rejectedOnBoth({ attachments: [{ url: 'ftp://example.com/x' }] }, ['attachments', 0, 'url']);
    await rejectedOnBoth({ attachments: ['https://example.com/a.png'] }, ['attachments', 0]);
  });

  it('rejects unknown values of attachments[].kind and attachments[].purpose (a new value is a new version)', async () => {
    await rejectedOnBoth({ attachments: [{ kind: 'video', url: A.url }] }, ['attachments', 0, 'kind']);
    await rejectedOnBoth(ctx({ attachments: [{ purpose: 'thumbnail', url: A.url }] }), [
      'host_context',
      'attachments',
      0,
      'purpose',
    ]);
  });

  it('turns legacy images and a top-level screenshot into screenshots the agent sees only when it looks at the screen', async () => {
    const shot = 'data:image/png;base64,iVBORw0KGgo=';
    const turn = await send({
      session_id: sid('legacy'),
      images: ['data:image/png;base64,AAAA'],
      screenshot: shot,
    });
    expect(turn.input.attachments).toEqual([]);
    expect(turn.input.screenAvailable).toBe(true);
    expect(turn.screen.map((s) => [s.purpose, s.data_uri])).toEqual([
      ['screenshot', 'data:image/png;base64,AAAA'],
      ['screenshot', shot],
    ]);
  });

  it('does not store screenshots: not on the message, and gone from the bucket after the turn', async () => {
    const sessionId = sid('nostore');
    const shot = 'data:image/png;base64,AAAA';
    const turn = await send({
      session_id: sessionId,
      attachments: [{ purpose: 'screenshot', data_uri: shot }],
    });
    // During the turn the screenshot was in the bucket: the agent read it from there.
    expect(turn.screen.map((s) => s.data_uri)).toEqual([shot]);
    const session = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}`)).json as {
      last_run: { id: string; status: string };
    };
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`)).json.messages as {
      attachments?: unknown;
    }[];
    expect(messages[0]?.attachments).toBeUndefined();
    // The keys the run recorded for its screenshots, as the worker reads them.
    const run = await getRun(sandbox.runtime, refOf(sessionId), session.last_run.id);
    const stored = run?.screenshots ?? [];
    expect(stored).toHaveLength(1);
    /** What reading the object gives: 'present', or the S3 error's name and HTTP status. */
    const s3 = await sandbox.runtime.s3();
    const read = (key: string) =>
      s3.send(new GetObjectCommand({ Bucket: sandbox.runtime.bucket, Key: key })).then(
        async (object) => {
          await object.Body?.transformToString(); // frees the connection
          return 'present';
        },
        (error: { name?: string; $metadata?: { httpStatusCode?: number } }) =>
          `${error.name} ${error.$metadata?.httpStatusCode}`,
      );
    for (const key of stored)
      await expect.poll(() => read(key), queued(`${key} to be deleted`)).toBe('NoSuchKey 404');
  });

  it('stores reference attachments with their message and replays them in later turns as first seen', async () => {
    const sessionId = sid('replay');
    const first = await send({ session_id: sessionId, attachments: [C, B] });
    const second = await send({ session_id: sessionId, content: 'more' }, 2);
    expect(second.input.attachments).toEqual([]);
    expect(second.input.history[0]?.attachments).toEqual(first.input.attachments);
    const messages = (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}/messages`)).json.messages as {
      attachments?: unknown[];
    }[];
    expect(messages[0]?.attachments).toEqual([
      { kind: 'text', purpose: 'reference' },
      { kind: 'document', purpose: 'reference', url: B.url, name: 'b' },
    ]);
  });

  it('moves a large attachment to the bucket and hands it back whole', async () => {
    const big = `data:text/plain;base64,${Buffer.from('z'.repeat(300_000)).toString('base64')}`;
    const sessionId = sid('big');
    const first = await send({ session_id: sessionId, attachments: [{ kind: 'document', data_uri: big }] });
    expect(first.input.attachments[0]?.data_uri).toBe(big);
    const second = await send({ session_id: sessionId, content: 'again' }, 2);
    expect(second.input.history[0]?.attachments[0]?.data_uri).toBe(big);
  });
});

describe('attachments as native content (io.parts)', () => {
  const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

  /** Uploads bytes with POST /api/files; answers the file id. */
  async function upload(name: string, type: string, body: Buffer | string): Promise<string> {
    const res = await fetch(`${sandbox.url}/api/files?name=${name}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  it('decodes a data URI to base64 data with its media type, keeps a URL a url, gives text as text', async () => {
    const turn = await send({
      session_id: sid('parts'),
      attachments: [
        { data_uri: `data:image/png;base64,${PNG.toString('base64')}`, name: 'logo' },
        { kind: 'document', data_uri: 'data:application/pdf;base64,JVBERi0=', name: 'terms.pdf' },
        { kind: 'text', data_uri: 'data:text/plain,caf%C3%A9%20au%20lait' },
        { url: 'https://example.com/a.png' },
        { kind: 'document', url: 'https://example.com/b.pdf', media_type: 'application/pdf', name: 'b' },
        { kind: 'text', text: 'some notes' },
      ],
    });
    expect(turn.parts).toEqual([
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
      { type: 'document', mediaType: 'application/pdf', data: 'JVBERi0=', name: 'terms.pdf' },
      { type: 'text', text: 'café au lait' },
      { type: 'image', url: 'https://example.com/a.png' },
      { type: 'document', url: 'https://example.com/b.pdf', mediaType: 'application/pdf', name: 'b' },
      { type: 'text', text: 'some notes' },
    ]);
    // The raw records stay where they were.
    expect(turn.input.attachments[0]).toMatchObject({ kind: 'image', purpose: 'reference', name: 'logo' });
  });

  it('resolves a file_id to the file: an image to its bytes, a text attachment to its text, a PDF given no kind to a document', async () => {
    const image = await upload('shot.png', 'image/png', PNG);
    const notes = await upload('notes.txt', 'text/plain', 'remember the milk');
    const pdf = await upload('terms.pdf', 'application/pdf', Buffer.from('%PDF-1.4 x'));
    const turn = await send({
      session_id: sid('file-parts'),
      attachments: [{ file_id: image }, { kind: 'text', file_id: notes }, { file_id: pdf }],
    });
    expect(turn.parts).toEqual([
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
      { type: 'text', text: 'remember the milk' },
      {
        type: 'document',
        mediaType: 'application/pdf',
        data: Buffer.from('%PDF-1.4 x').toString('base64'),
        name: 'terms.pdf',
      },
    ]);
  });

  it('gives a continuation’s reference attachments to resolveAction as parts, after the tool result', async () => {
    const sessionId = sid('parts-continue');
    await send({ session_id: sessionId, content: 'call open_page' });
    await expect
      .poll(
        async () => (await api(sandbox.url, 'GET', `/api/sessions/${sessionId}`)).json.status,
        queued('the pause on the host call'),
      )
      .toBe('requires_action');
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: sessionId,
      content: '',
      tool_call_id: 'call_open',
      tool_result: { opened: true },
      attachments: [
        { kind: 'text', text: 'the log' },
        { data_uri: `data:image/png;base64,${PNG.toString('base64')}` },
      ],
    });
    expect(res.status, res.text).toBe(202);
    await expect.poll(() => recorder.resolutions(sessionId).length, queued('the continuation')).toBe(1);
    expect(recorder.resolutions(sessionId)[0]?.parts).toEqual([
      { type: 'text', text: 'the log' },
      { type: 'image', mediaType: 'image/png', data: PNG.toString('base64') },
    ]);
  });

  it('replays a message’s parts in later turns as first given, a large one from the bucket, and never a screenshot', async () => {
    const sessionId = sid('parts-replay');
    const notes = await upload('later.txt', 'text/plain', 'kept for later');
    const big = 'z'.repeat(300_000);
    const first = await send({
      session_id: sessionId,
      attachments: [
        { kind: 'text', text: big },
        { kind: 'text', file_id: notes },
        { url: 'https://example.com/a.png' },
        { purpose: 'screenshot', data_uri: 'data:image/png;base64,AAAA' },
      ],
    });
    expect(first.screen).toHaveLength(1);
    const second = await send({ session_id: sessionId, content: 'more' }, 2);
    expect(second.parts).toEqual([]);
    const firstId = second.input.history[0]!.id;
    expect(second.historyParts[firstId]).toEqual(first.parts);
    expect(first.parts).toEqual([
      { type: 'text', text: big },
      { type: 'text', text: 'kept for later' },
      { type: 'image', url: 'https://example.com/a.png' },
    ]);
    expect(JSON.stringify(second.historyParts)).not.toContain('AAAA');
    // An answer carries no attachments; an id not of this conversation answers nothing.
    expect(second.historyParts[second.input.history[1]!.id]).toEqual([]);
  });
});

describe('files: uploads that attachments reference', () => {
  it('takes the bytes in the request, and hands them to the agent through io.files', async () => {
    const res = await fetch(`${sandbox.url}/api/files?name=notes.txt`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'remember the milk',
    });
    expect(res.status).toBe(201);
    const file = (await res.json()) as { id: string; size: number; status: string };
    expect(file).toMatchObject({ size: 17, status: 'stored' });
    const turn = await send({
      session_id: sid('file'),
      attachments: [{ kind: 'document', file_id: file.id }],
    });
    expect(turn.input.files).toEqual([{ id: file.id, name: 'notes.txt', mimeType: 'text/plain', size: 17 }]);
    expect(turn.fileTexts[file.id]).toBe('remember the milk');
  });

  it('answers a presigned upload URL for a file too big for the transports', async () => {
    const bytes = Buffer.alloc(2 * 1024 * 1024, 7);
    const created = await api(sandbox.url, 'POST', '/api/files', {
      name: 'scan.bin',
      media_type: 'application/octet-stream',
      size: bytes.length,
      sha256: sha256Of(bytes),
    });
    expect(created.status).toBe(201);
    const upload = created.json.upload as { url: string; method: string; headers: Record<string, string> };
    expect((await api(sandbox.url, 'GET', `/api/files/${created.json.id}`)).json.status).toBe('pending');
    await rejectedOnBoth({ attachments: [{ file_id: created.json.id }] }, ['attachments', 0, 'file_id']);
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });
    expect(put.status).toBe(200);
    expect((await api(sandbox.url, 'GET', `/api/files/${created.json.id}`)).json).toMatchObject({
      status: 'stored',
      size: bytes.length,
    });
    const turn = await send({ session_id: sid('presigned'), attachments: [{ file_id: created.json.id }] });
    expect(turn.input.files[0]).toMatchObject({ id: created.json.id, size: bytes.length });
    expect((await api(sandbox.url, 'GET', `/api/files/${created.json.id}`)).json).toMatchObject({
      status: 'stored',
      size: bytes.length,
    });
  });

  it('rejects a file id that does not exist, at its path', async () => {
    await rejectedOnBoth({ attachments: [{ file_id: 'file_01M8RAS1W7VB7WP6N35XNWNRQG' }] }, [
      'attachments',
      0,
      'file_id',
    ]);
    await rejectedOnBoth(ctx({ attachments: [{ file_id: 'file_01M8RAS1W7VB7WP6N35XNWNRQG' }] }), [
      'host_context',
      'attachments',
      0,
      'file_id',
    ]);
  });

  it('rejects an upload request without a name or with a size over the limit', async () => {
    expect((await api(sandbox.url, 'POST', '/api/files', { size: 3 })).status).toBe(422);
    expect(
      (await api(sandbox.url, 'POST', '/api/files', { name: 'x', size: 10 ** 12, sha256: sha256Of('x') }))
        .json.error,
    ).toMatchObject({ issues: [{ path: ['size'] }] });
  });
});

describe('tool scoping', () => {
  const hostNames = (t: { input: { tools: { host: { name: string; source: string }[] } } }) =>
    t.input.tools.host.map((h) => `${h.source}:${h.name}`);

  it('offers configured host tools every turn and request-declared actions on the turns that carry them (or reuse them)', async () => {
    const sessionId = sid('tools');
    expect(hostNames(await send({ session_id: sessionId }))).toEqual(['configured:open_page']);
    expect(hostNames(await send({ session_id: sessionId, host_context: SEED_CONTEXT }, 2))).toEqual([
      'configured:open_page',
      'request:select_issue',
    ]);
    expect(hostNames(await send({ session_id: sessionId, content: 'reuse' }, 3))).toEqual([
      'configured:open_page',
      'request:select_issue',
    ]);
    expect(
      hostNames(await send({ session_id: sessionId, host_context: { view: { name: 'tasks' } } }, 4)),
    ).toEqual(['configured:open_page']);
  });

  it('ignores, with a warning, an action whose name is a registered tool', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const turn = await send({
      session_id: sid('collide'),
      host_context: {
        actions: ['open_page', 'search_issues', 'fresh'].map((name) => ({
          name,
          parameters: { type: 'object' },
        })),
      },
    });
    expect(hostNames(turn)).toEqual(['configured:open_page', 'request:fresh']);
    const warned = warn.mock.calls
      .map((c) => JSON.stringify(c))
      .filter((c) => c.includes('Ignored a host action'));
    warn.mockRestore();
    expect(warned.length).toBeGreaterThanOrEqual(2);
  });

  it('lets view.name select the page scopes of backend tools', async () => {
    const backend = (t: { input: { tools: { backend: { name: string }[] } } }) =>
      t.input.tools.backend.map((b) => b.name);
    expect(
      backend(await send({ session_id: sid('scope'), host_context: { view: { name: 'tasks' } } })),
    ).toEqual(['search_issues', 'summarize']);
    expect(
      backend(await send({ session_id: sid('scope'), host_context: { view: { name: 'settings' } } })),
    ).toEqual(['summarize']);
    expect(
      backend(await send({ session_id: sid('scope'), host_context: { host: { kind: 'service' } } })),
    ).toEqual(['summarize']);
  });
});
