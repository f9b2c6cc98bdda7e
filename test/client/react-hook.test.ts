// @vitest-environment happy-dom
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render, renderHook } from '@testing-library/react';
import { Activity, type ActivityProps, createElement } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
// The limits alone: this file runs in a DOM environment, where the sandbox's modules do not load.
import { TEST_LIMITS } from '../../bench/support/limits.ts';
import {
  ArgsValidationError,
  type ClientOptions,
  createClient,
  type FetchLike,
  type SwitchboardClient,
  type WebSocketConstructor,
} from '../../client/index.ts';
import {
  type ChatMessage,
  type SwitchboardChat,
  type TurnError,
  type UseSwitchboardChatOptions,
  useSwitchboardChat,
} from '../../react/index.ts';
import { DevProcess } from '../support/dev-process.ts';
import { queued } from '../support/wait.ts';

/**
 * `switchboard/react` in a DOM (happy-dom) with React Testing Library, against a real sandbox: the
 * hook renders what the session's log says, and the requests it makes reach the server once. The
 * sandbox runs as `switchboard dev` in a process of its own, serving test/support/hook-agents.ts
 * (the demo agent, a paced one and the pausing ones): in a DOM environment its code cannot run in
 * the test's process, as the bundler rewrites its module URLs for a page.
 */

let dev: DevProcess;
let url: string;
let wsUrl: string;
let token: string;
const work = mkdtempSync(join(tmpdir(), 'switchboard-react-'));
let n = 0;
/** A session id no other test of this file uses. */
const sid = (name: string) => {
  n += 1;
  return `react-${name}-${n}`;
};
const clients: SwitchboardClient[] = [];
const unmounts: (() => void)[] = [];

beforeAll(async () => {
  const settings = join(work, 'settings.json');
  writeFileSync(settings, JSON.stringify({ limits: TEST_LIMITS }));
  dev = await DevProcess.start(
    ['--agents', 'test/support/hook-agents.ts', '--no-watch', '--settings', settings, '--user', 'alice'],
    { LOG_LEVEL: 'ERROR' },
  );
  url = dev.url;
  wsUrl = /WebSocket:\s+(ws:\/\/\S+)/.exec(dev.stdout)?.[1] ?? '';
  token = /^ {2}alice: (\S+)$/m.exec(dev.stdout)?.[1] ?? '';
  expect([url, wsUrl, token].every(Boolean)).toBe(true);
}, 90_000);
afterEach(() => {
  for (const unmount of unmounts.splice(0)) unmount();
  for (const client of clients.splice(0)) client.close();
});
afterAll(async () => {
  await dev?.stop();
  rmSync(work, { recursive: true, force: true });
}, 30_000);

/** The `ws` WebSocket, recording every socket made. */
function recordingWebSocket() {
  const sockets: WebSocket[] = [];
  class Recording extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols);
      sockets.push(this);
    }
  }
  return { WebSocket: Recording as unknown as WebSocketConstructor, sockets };
}

/** The page's `fetch`, recording each request's method and path. */
function recordingFetch() {
  const requests: string[] = [];
  const fetch: FetchLike = (input, init) => {
    requests.push(`${init?.method ?? 'GET'} ${new URL(input).pathname}`);
    return globalThis.fetch(input, init as RequestInit);
  };
  return { fetch, requests };
}

/** What the hook takes to make its own client against the sandbox, recording sockets and requests. */
function clientOptions(): ClientOptions & ReturnType<typeof recordingWebSocket> & { requests: string[] } {
  const ws = recordingWebSocket();
  const http = recordingFetch();
  return {
    url,
    wsUrl,
    token,
    gapTimeoutMs: 300,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    ...ws,
    ...http,
  };
}

/** A client of the app's own, shared by hooks. */
function sharedClient() {
  const options = clientOptions();
  const client = createClient(options);
  clients.push(client);
  return { client, sockets: options.sockets, requests: options.requests };
}

/** Renders the hook (in StrictMode when asked), keeping every state it rendered. */
function mount(options: UseSwitchboardChatOptions, { strictMode = false } = {}) {
  const renders: SwitchboardChat[] = [];
  const hook = renderHook(
    (props: UseSwitchboardChatOptions) => {
      const chat = useSwitchboardChat(props);
      renders.push(chat);
      return chat;
    },
    // StrictMode at the root, as an app's `createRoot(…).render(<StrictMode>…)`: effects mount, unmount and mount again.
    { initialProps: options, reactStrictMode: strictMode },
  );
  unmounts.push(hook.unmount);
  return { ...hook, renders, chat: () => hook.result.current };
}

/** A component that shows nothing and hands each state the hook renders to `onRender`. */
function Probe({
  options,
  onRender,
}: {
  options: UseSwitchboardChatOptions;
  onRender: (chat: SwitchboardChat) => void;
}) {
  onRender(useSwitchboardChat(options));
  return null;
}

/** Resolves once `check` holds for the rendered state, polling. */
const until = (check: () => boolean, what: string) => expect.poll(check, queued(what)).toBe(true);

const last = (messages: ChatMessage[], role: ChatMessage['role']) =>
  messages.filter((m) => m.role === role).at(-1);

const numbers = (count: number) => Array.from({ length: count }, (_, i) => `${i + 1} `).join('');

describe('useSwitchboardChat against the sandbox', () => {
  it('streams an answer: the user message, the tool call and its result, the text, and the status on the way', async () => {
    const { client } = sharedClient();
    const view = mount({ client, sessionId: sid('stream'), agentId: 'demo' });
    await until(() => view.chat().connection === 'open', 'the socket to open');
    const accepted = await view.chat().send('hello there');
    await until(() => view.chat().status === 'idle' && view.chat().messages.length === 2, 'the answer');

    const [user, answer] = view.chat().messages;
    expect(user).toMatchObject({ id: accepted.message_id, role: 'user', text: 'hello there' });
    expect(answer).toMatchObject({ id: accepted.assistant_message_id, role: 'assistant', state: 'done' });
    expect(answer?.parts.map((p) => p.type)).toEqual(['tool', 'text']);
    expect(answer?.parts[0]).toMatchObject({
      type: 'tool',
      name: 'text_stats',
      state: 'succeeded',
      result: { words: 2 },
    });
    const final = view.chat().session?.delivered.find((e) => e.type === 'final_response');
    expect(final?.type === 'final_response' && final.data.content).toBe(answer?.text);
    expect(answer?.text).toContain('You wrote 2 words');
    // The status the renders went through: streaming from the send, idle at the end.
    const statuses = view.renders.map((r) => r.status).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual(['idle', 'streaming', 'idle']);
    expect(view.chat().lastSeq).toBe(view.chat().session?.lastSeq);
  });

  it('stops a running turn: the answer ends where it was cut, and stopping again is no error', async () => {
    const { client } = sharedClient();
    const view = mount({ client, sessionId: sid('stop'), agentId: 'paced' });
    await view.chat().send('500');
    await until(
      () => (last(view.chat().messages, 'assistant')?.text ?? '').startsWith('1 2 '),
      'a few chunks',
    );
    await view.chat().stop();
    await until(() => view.chat().status === 'idle', 'the turn to end');
    const answer = last(view.chat().messages, 'assistant');
    expect(answer?.state).toBe('done');
    expect(answer?.text.length).toBeLessThan(numbers(500).length);
    const end = view
      .chat()
      .session?.delivered.filter((e) => e.type === 'session.status_idle')
      .at(-1);
    expect(end?.type === 'session.status_idle' && end.data.status).toBe('cancelled');
    await expect(view.chat().stop()).resolves.toBeUndefined();
    expect(view.chat().error).toBeUndefined();
  });

  it('regenerates and edits: replaced messages leave the list; a rating shows at once and is restored on the next mount', async () => {
    const { client } = sharedClient();
    const sessionId = sid('rewrite');
    const view = mount({ client, sessionId, agentId: 'demo' });
    const first = await view.chat().send('first words');
    await until(() => view.chat().status === 'idle' && view.chat().messages.length === 2, 'the answer');

    await view.chat().regenerate();
    await until(
      () => last(view.chat().messages, 'assistant')?.text.startsWith('Another take: ') === true,
      'the regenerated answer',
    );
    await until(() => view.chat().status === 'idle', 'the regenerated turn to end');
    const messages = view.chat().messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[0]).toMatchObject({ id: first.message_id, text: 'first words' });
    expect(messages[1]?.id).not.toBe(first.assistant_message_id);

    const edited = await view.chat().edit(first.message_id, 'three words here');
    await until(
      () => view.chat().status === 'idle' && last(view.chat().messages, 'assistant')?.state === 'done',
      'the edited turn',
    );
    await until(() => view.chat().messages[0]?.id === edited.message_id, 'the edited message');
    expect(view.chat().messages.map((m) => [m.role, m.text.slice(0, 13)])).toEqual([
      ['user', 'three words h'],
      ['assistant', 'You wrote 3 w'],
    ]);

    const answerId = edited.assistant_message_id;
    await view.chat().rate(answerId, 'up', { reasons: ['clear'] });
    expect(view.chat().messages.find((m) => m.id === answerId)?.rating).toBe('up');
    view.unmount();
    const again = mount({ client, sessionId, agentId: 'demo' });
    await until(
      () => again.chat().messages.find((m) => m.id === answerId)?.rating === 'up',
      'the rating restored from the stored messages',
    );
  });

  it('keeps each failed turn’s error under its own answer, in order, and again after a reload', async () => {
    const sessionId = sid('turn-errors');
    const view = mount({ client: sharedClient().client, sessionId, agentId: 'failing' });
    // One turn streams some text before it fails; the next fails before it writes anything.
    const first = await view.chat().send('partly: Looking it up. ');
    await until(() => view.chat().status === 'error', 'the first turn to fail');
    const second = await view.chat().send('at once');
    await until(
      () => view.chat().status === 'error' && view.chat().messages.length === 4,
      'the second turn to fail',
    );
    const errorsByRun = new Map<string, TurnError[]>();
    for (const e of view.chat().session?.delivered ?? [])
      if (e.type === 'session.error' && e.run_id)
        errorsByRun.set(e.run_id, [
          ...(errorsByRun.get(e.run_id) ?? []),
          { code: e.data.code, message: e.data.message },
        ]);
    expect([...errorsByRun.keys()]).toEqual([first.run_id, second.run_id]);
    const shown = (chat: SwitchboardChat) =>
      chat.messages.map(({ id, role, text, parts, state, runId, errors }) => ({
        id,
        role,
        text,
        parts: parts.length,
        state,
        runId,
        errors,
      }));
    expect(shown(view.chat())).toEqual([
      {
        id: first.message_id,
        role: 'user',
        text: 'partly: Looking it up. ',
        parts: 1,
        state: 'done',
        runId: first.run_id,
        errors: [],
      },
      {
        id: first.assistant_message_id,
        role: 'assistant',
        text: 'Looking it up. ',
        parts: 1,
        state: 'done',
        runId: first.run_id,
        errors: errorsByRun.get(first.run_id),
      },
      {
        id: second.message_id,
        role: 'user',
        text: 'at once',
        parts: 1,
        state: 'done',
        runId: second.run_id,
        errors: [],
      },
      // The turn wrote nothing: its message is the error's place, under its run's id.
      {
        id: second.run_id,
        role: 'assistant',
        text: '',
        parts: 0,
        state: 'done',
        runId: second.run_id,
        errors: errorsByRun.get(second.run_id),
      },
    ]);
    expect(errorsByRun.get(first.run_id)).toEqual([{ code: 'agent_error', message: expect.any(String) }]);
    // The errors belong to their turns: none is the hook's own.
    expect(view.chat().error).toBeUndefined();
    const before = shown(view.chat());

    // A reload: a new client and a new hook on the same session read the log again.
    view.unmount();
    const again = mount({ client: sharedClient().client, sessionId, agentId: 'failing' });
    await until(
      () =>
        again.chat().connection === 'open' &&
        again.chat().status === 'error' &&
        again.chat().messages.length === 4,
      'the conversation replayed',
    );
    expect(shown(again.chat())).toEqual(before);
    expect(again.chat().error).toBeUndefined();
  });

  it('keeps the error of a host call’s continuation under the message that made the call', async () => {
    const view = mount({
      client: sharedClient().client,
      sessionId: sid('continuation-error'),
      agentId: 'failing',
      hostContext: { actions: [{ name: 'select_issue', parameters: { type: 'object' } }] },
    });
    const sent = await view.chat().send('call first');
    await until(() => view.chat().requests[0]?.type === 'host_tool', 'the host call');
    const [call] = view.chat().requests;
    if (call?.type !== 'host_tool') throw new Error('expected a host call');
    const continued = await call.answer({ selected: 7 });
    await until(() => view.chat().status === 'error', 'the continuation to fail');
    expect(continued.run_id).not.toBe(sent.run_id);
    expect(view.chat().messages.map((m) => [m.id, m.role, m.text, m.errors.map((e) => e.code)])).toEqual([
      [sent.message_id, 'user', 'call first', []],
      [sent.assistant_message_id, 'assistant', 'Selecting it. ', ['agent_error']],
    ]);
  });

  it('drops a failed turn’s answer, errors and all, when an edit replaces its message', async () => {
    const view = mount({ client: sharedClient().client, sessionId: sid('edit-error'), agentId: 'failing' });
    const first = await view.chat().send('fine');
    await until(() => view.chat().status === 'idle' && view.chat().messages.length === 2, 'the answer');
    const failed = await view.chat().send('at once');
    await until(
      () => view.chat().status === 'error' && view.chat().messages.length === 4,
      'the turn to fail',
    );
    // The failed answer is not stored, so `messages.replaced` does not name it: it goes with its question.
    const edited = await view.chat().edit(failed.message_id, 'fine');
    await until(
      () =>
        view.chat().status === 'idle' &&
        last(view.chat().messages, 'assistant')?.id === edited.assistant_message_id,
      'the edited turn’s answer',
    );
    expect(view.chat().messages.map((m) => [m.id, m.text, m.errors])).toEqual([
      [first.message_id, 'fine', []],
      [first.assistant_message_id, 'Fine.', []],
      [edited.message_id, 'fine', []],
      [edited.assistant_message_id, 'Fine.', []],
    ]);
  });

  it('keeps a refused request’s error in chat.error, under no message', async () => {
    const view = mount({ client: sharedClient().client, sessionId: sid('refused'), agentId: 'failing' });
    await view.chat().send('at once');
    await until(
      () => view.chat().status === 'error' && view.chat().messages.length === 2,
      'the turn to fail',
    );
    const failedTurn = view.chat().messages.map((m) => m.errors);
    expect(view.chat().error).toBeUndefined();
    // A request id with a space: the server refuses the message before any turn.
    const refused = await view
      .chat()
      .send('hello again', { id: 'not an id' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'validation_error' });
    expect(view.chat().error).toBe(refused);
    expect(view.chat().status).toBe('error');
    expect(view.chat().messages.map((m) => m.errors)).toEqual(failedTurn);
    expect(failedTurn.flat().map((e) => e.code)).toEqual(['agent_error']);
  });

  it('offers continueTurn once a turn stopped at max_turns, and carries it on with no new message', async () => {
    const { client } = sharedClient();
    const view = mount({ client, sessionId: sid('continue'), agentId: 'stepper' });
    await until(() => view.chat().connection === 'open', 'the socket to open');
    expect(view.chat().canContinue).toBe(false);
    await view.chat().send('count with the hook');
    await until(() => view.chat().status === 'idle' && view.chat().canContinue, 'the stopped turn');
    const accepted = await view.chat().continueTurn();
    await until(
      () =>
        view.chat().status === 'idle' &&
        last(view.chat().messages, 'assistant')?.id === accepted.assistant_message_id,
      'the continued turn',
    );
    expect(view.chat().canContinue).toBe(false);
    expect(last(view.chat().messages, 'assistant')?.text).toBe('Counted.');
    expect(view.chat().messages.filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('shows a file sent with a message in that message, and again on the next mount, from the stored message', async () => {
    const { client } = sharedClient();
    const sessionId = sid('files');
    const view = mount({ client, sessionId, agentId: 'demo' });
    const file = await view
      .chat()
      .upload('Order 42 was late.', { name: 'note.txt', mediaType: 'text/plain' });
    const sent = await view.chat().send('What is in the file I attached?', { files: [file] });
    await until(() => view.chat().status === 'idle' && view.chat().messages.length === 2, 'the answer');
    const shown = { type: 'file', id: file.id, name: 'note.txt', mediaType: 'text/plain' };
    const fileParts = (chat: SwitchboardChat) =>
      chat.messages.find((m) => m.id === sent.message_id)?.parts.filter((p) => p.type === 'file') ?? [];
    expect(fileParts(view.chat())).toEqual([{ ...shown, size: file.size }]);
    view.unmount();
    // A reload: a new client and a new mount. The log does not repeat the files; the stored message names them.
    const again = mount({ client: sharedClient().client, sessionId, agentId: 'demo' });
    await until(() => fileParts(again.chat()).length > 0, 'the file restored from the stored message');
    expect(fileParts(again.chat())).toEqual([{ ...shown, size: null }]);
  });

  it('keeps the files an edit names on the edited message, and drops the ones it leaves out', async () => {
    const { client } = sharedClient();
    const view = mount({ client, sessionId: sid('edit-files'), agentId: 'demo' });
    const file = await view
      .chat()
      .upload('Order 42 was late.', { name: 'note.txt', mediaType: 'text/plain' });
    const sent = await view.chat().send('What is in the file I attached?', { files: [file] });
    await until(() => view.chat().status === 'idle' && view.chat().messages.length === 2, 'the answer');
    const fileNames = () =>
      last(view.chat().messages, 'user')
        ?.parts.filter((p) => p.type === 'file')
        .map((p) => p.name);
    // By id: the hook knows the file from the message it edits.
    const edited = await view.chat().edit(sent.message_id, 'What does the file say?', { files: [file.id] });
    await until(
      () =>
        last(view.chat().messages, 'user')?.text === 'What does the file say?' &&
        view.chat().status === 'idle',
      'the edited turn',
    );
    expect(fileNames()).toEqual(['note.txt']);
    await view.chat().edit(edited.message_id, 'one two three');
    await until(() => last(view.chat().messages, 'user')?.text === 'one two three', 'the second edit');
    expect(fileNames()).toEqual([]);
  });

  it('puts the text that leads into a request before its card, when none of it streamed', async () => {
    const { client } = sharedClient();
    const view = mount({ client, sessionId: sid('lead-in'), agentId: 'demo' });
    await view.chat().send('Help me choose a plan');
    await until(() => view.chat().status === 'requires_action', 'the question');
    await until(() => last(view.chat().messages, 'assistant')?.text !== '', 'the lead-in text');
    expect(last(view.chat().messages, 'assistant')?.parts.map((p) => p.type)).toEqual(['text', 'request']);
  });

  it('approves with edited args: ones that do not fit argsSchema are refused before anything is sent', async () => {
    const { client, requests } = sharedClient();
    const view = mount({ client, sessionId: sid('approve'), agentId: 'pauser' });
    await view.chat().send('wire');
    await until(() => view.chat().status === 'requires_action', 'the approval');
    const [request] = view.chat().requests;
    if (request?.type !== 'tool_approval') throw new Error(`expected an approval, got ${request?.type}`);
    expect(request).toMatchObject({ id: 'req_wire', toolName: 'wire_money', args: { amount: 5 } });

    const refused = await request.approve({ amount: 500 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ArgsValidationError);
    expect((refused as ArgsValidationError).issues).toEqual([
      { path: ['approved_args', 'amount'], message: 'must be <= 100' },
    ]);
    expect(requests.filter((r) => r.includes('/actions/'))).toEqual([]);
    expect(view.chat().error).toBeUndefined();
    expect(view.chat().requests.map((r) => r.id)).toEqual(['req_wire']);

    await request.approve({ amount: 99 }, { comment: 'a bit less' });
    await until(
      () =>
        last(view.chat().messages, 'assistant')?.text === 'resolved req_wire: "approve" with {"amount":99}',
      'the answer to the approval',
    );
    await until(() => view.chat().status === 'idle', 'the turn to end');
    expect(requests.filter((r) => r.includes('/actions/'))).toHaveLength(1);
    expect(view.chat().requests).toEqual([]);
    const asked = view
      .chat()
      .messages.flatMap((m) => m.parts)
      .find((p) => p.type === 'request');
    expect(asked).toMatchObject({
      id: 'req_wire',
      state: 'resolved',
      resolution: { decision: 'approve', approved_args: { amount: 99 }, comment: 'a bit less' },
    });
  });

  it('performs a host action with its handler, declared in host_context from the hook’s actions', async () => {
    const { client } = sharedClient();
    const performed: unknown[] = [];
    const view = mount({
      client,
      sessionId: sid('host'),
      agentId: 'demo',
      actions: {
        close_issue: {
          description: 'Closes an issue on the page',
          parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
          handler: (args) => {
            performed.push(args);
            return { closed: (args as { number: number }).number };
          },
        },
      },
    });
    await view.chat().send('Close issue #2');
    await until(
      () => last(view.chat().messages, 'assistant')?.text.endsWith('Done: issue #2 is closed.') === true,
      'the answer after the host action',
    );
    await until(() => view.chat().status === 'idle', 'the turn to end');
    expect(performed).toEqual([{ number: 2 }]);
    const answer = last(view.chat().messages, 'assistant');
    expect(answer?.parts.find((p) => p.type === 'host_action')).toMatchObject({
      name: 'close_issue',
      args: { number: 2 },
      state: 'succeeded',
      result: { closed: 2 },
    });
    expect(view.renders.some((r) => r.requests.length > 0)).toBe(false);
  });

  it('lists a host action it has no handler for as a request, and sends what the app answers', async () => {
    const { client } = sharedClient();
    const view = mount({
      client,
      sessionId: sid('host-request'),
      agentId: 'driver',
      hostContext: { actions: [{ name: 'select_issue', parameters: { type: 'object' } }] },
    });
    await view.chat().send('one');
    await until(() => view.chat().requests[0]?.type === 'host_tool', 'the host call');
    const [call] = view.chat().requests;
    if (call?.type !== 'host_tool') throw new Error('expected a host call');
    expect(call).toMatchObject({ id: 'call_select', toolName: 'select_issue', args: { number: 42 } });
    await call.answer({ selected: 42 });
    await until(() => view.chat().status === 'idle' && view.chat().requests.length === 0, 'the turn to end');
    expect(last(view.chat().messages, 'assistant')?.text).toBe('Working on it. Done: {"selected":42}');
  });

  it('answers a client tool with its handler, once', async () => {
    const { client, requests } = sharedClient();
    const calls: string[] = [];
    const view = mount({
      client,
      sessionId: sid('tool'),
      agentId: 'demo',
      clientTools: {
        local_time: (_args, { actionId }) => {
          calls.push(actionId);
          return { time: '10:00', zone: 'UTC' };
        },
      },
    });
    await view.chat().send('What time is it here?');
    await until(
      () => last(view.chat().messages, 'assistant')?.text === 'On your device it is 10:00 (UTC).',
      'the answer after the client tool',
    );
    expect(calls).toHaveLength(1);
    expect(requests.filter((r) => r.includes('/actions/'))).toHaveLength(1);
    expect(view.renders.some((r) => r.requests.length > 0)).toBe(false);
  });

  it('reconnects after its socket is killed mid-stream: the answer has no gap and no duplicate', async () => {
    const { client, sockets } = sharedClient();
    const view = mount({ client, sessionId: sid('kill'), agentId: 'paced' });
    await view.chat().send('20');
    await until(
      () => (last(view.chat().messages, 'assistant')?.text ?? '').startsWith('1 '),
      'the first chunk',
    );
    sockets.at(-1)?.terminate();
    await until(() => view.renders.some((r) => r.connection === 'reconnecting'), 'the client to see it gone');
    await until(() => view.chat().status === 'idle', 'the turn to end');
    expect(sockets).toHaveLength(2);
    expect(view.chat().connection).toBe('open');
    expect(view.chat().messages.map((m) => [m.role, m.text])).toEqual([
      ['user', '20'],
      ['assistant', numbers(20)],
    ]);
    const log = await view.chat().session?.readEvents({ after: 0, limit: 1000 });
    expect(view.chat().session?.delivered.map((e) => e.seq)).toEqual(log?.events.map((e) => e.seq));
  });

  it('survives StrictMode’s double mount: one socket, one send, one answer to a client tool, closed on unmount', async () => {
    const options = clientOptions();
    const calls: string[] = [];
    const view = mount(
      {
        ...options,
        sessionId: sid('strict'),
        agentId: 'demo',
        clientTools: {
          local_time: (_args, { actionId }) => {
            calls.push(actionId);
            return { time: '11:00' };
          },
        },
      },
      { strictMode: true },
    );
    await until(() => view.chat().connection === 'open', 'the socket to open');
    await view.chat().send('What time is it here?');
    await until(
      () => last(view.chat().messages, 'assistant')?.text === 'On your device it is 11:00.',
      'the answer after the client tool',
    );
    expect(options.sockets).toHaveLength(1);
    expect(options.requests.filter((r) => r === 'POST /api/chat')).toHaveLength(1);
    expect(options.requests.filter((r) => r.includes('/actions/'))).toHaveLength(1);
    expect(calls).toHaveLength(1);
    const users = view.chat().session?.delivered.filter((e) => e.type === 'user.message');
    expect(users).toHaveLength(1);

    view.unmount();
    await until(() => options.sockets[0]?.readyState === WebSocket.CLOSED, 'the hook’s client to close');
    expect(options.sockets).toHaveLength(1);
  });

  it('comes back after <Activity> hid it: the hidden hook closed its client, the shown one follows the session again', async () => {
    const options = clientOptions();
    const sessionId = sid('activity');
    let chat: SwitchboardChat | undefined;
    const props = {
      options: { ...options, sessionId, agentId: 'demo' },
      onRender: (c: SwitchboardChat) => (chat = c),
    };
    const tree = (mode: 'visible' | 'hidden') =>
      createElement(Activity, { mode } as ActivityProps, createElement(Probe, props));
    const view = render(tree('visible'));
    unmounts.push(view.unmount);
    await until(() => chat?.session !== undefined, 'the hook to mount');
    await chat?.send('hello there');
    await until(() => chat?.status === 'idle' && chat.messages.length === 2, 'the answer');

    view.rerender(tree('hidden'));
    await until(
      () => options.sockets[0]?.readyState === WebSocket.CLOSED,
      'the hidden hook’s client to close',
    );
    view.rerender(tree('visible'));
    await until(
      () => chat?.connection === 'open' && chat.messages.map((m) => m.role).join() === 'user,assistant',
      'the conversation, replayed by a new client',
    );
    expect(options.sockets).toHaveLength(2);
  });
});
