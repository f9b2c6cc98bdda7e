import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SwitchboardChatTransport } from '../../ai-sdk/index.ts';
import type { WebSocketConstructor } from '../../client/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import { mintDevToken } from '../../sandbox/dev-key.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { gatedAgent } from '../support/gated-agent.ts';
import { pauseAgents } from '../support/pause-agents.ts';
import { sessionIds, testSandbox } from '../support/sandbox.ts';
import { queued } from '../support/wait.ts';

/** Numbered, so that a regenerated answer shows; with usage, for the finish chunk's metadata. */
const gated = gatedAgent({ numbered: true, usage: { inputTokens: 3, outputTokens: 2 } });
const { gate, aborted } = gated;

const agents = pauseAgents();
const app = createSwitchboard();
app.registerHostAgent(gated.definition);
for (const definition of agents.definitions) app.registerHostAgent(definition);

let sandbox: Sandbox;
const sid = sessionIds('aisdk');
const transports: SwitchboardChatTransport[] = [];

beforeAll(async () => {
  sandbox = await testSandbox({ app, jwt: true });
});
afterEach(() => {
  for (const transport of transports.splice(0)) transport.close();
});
afterAll(async () => {
  await sandbox?.close();
});

/** The AI SDK's chat with plain state: what `useChat` does, without React. */
class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    const state: ChatState<UIMessage> = {
      status: 'ready' as ChatStatus,
      error: undefined,
      messages: init.messages ?? [],
      pushMessage(message) {
        this.messages = [...this.messages, message];
      },
      popMessage() {
        this.messages = this.messages.slice(0, -1);
      },
      replaceMessage(index, message) {
        this.messages = this.messages.map((m, i) => (i === index ? message : m));
      },
      snapshot: (thing) => structuredClone(thing),
    };
    super({ ...init, state });
  }
}

function transport(agentId: string) {
  const t = new SwitchboardChatTransport({
    url: sandbox.url,
    wsUrl: sandbox.wsUrl,
    token: () => mintDevToken({ user: 'alice', tenant: 'acme' }),
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    agentId,
  });
  transports.push(t);
  return t;
}

function chatOf(id: string, agentId: string, init: Partial<ChatInit<UIMessage>> = {}) {
  return new TestChat({
    id,
    transport: transport(agentId),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    ...init,
  });
}

const assistants = (chat: TestChat) => chat.messages.filter((m) => m.role === 'assistant');
const textOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
const toolPart = (message: UIMessage | undefined) =>
  message?.parts.find((p) => p.type === 'dynamic-tool') as
    | { state: string; toolName: string; input: unknown; approval?: { id: string; approved?: boolean } }
    | undefined;

describe('SwitchboardChatTransport with the AI SDK Chat', () => {
  it('streams an answer into one assistant message with Switchboard ids and usage metadata', async () => {
    const chat = chatOf(sid('stream'), 'gated');
    const open = gate('stream me');
    const sent = chat.sendMessage({ text: 'stream me' });
    // The first half is shown while the agent still waits: it streams.
    await expect.poll(() => textOf(assistants(chat)[0]), queued('the first half')).toBe('Hello ');
    expect(chat.status).toBe('streaming');
    open();
    await sent;
    expect(chat.status).toBe('ready');
    const [answer] = assistants(chat);
    expect(assistants(chat)).toHaveLength(1);
    expect(textOf(answer)).toMatch(/^Hello world \d+\.$/);
    expect(answer!.id).toMatch(/^msg_/);
    expect(answer!.metadata).toMatchObject({
      stopReason: 'end_turn',
      status: 'completed',
      usage: { inputTokens: 3, outputTokens: 2 },
    });
  });

  it('regenerates the answer as a new message of the same turn', async () => {
    const chat = chatOf(sid('regen'), 'gated');
    await chat.sendMessage({ text: 'again' });
    const first = assistants(chat)[0]!;
    await chat.regenerate();
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const second = assistants(chat)[0]!;
    expect(second.id).not.toBe(first.id);
    expect(textOf(second)).toMatch(/^Hello world \d+\.$/);
    expect(textOf(second)).not.toBe(textOf(first));
  });

  it('asks approval as a tool part and approves it through addToolApprovalResponse', async () => {
    const chat = chatOf(sid('approve'), 'pauser');
    await chat.sendMessage({ text: 'wire' });
    const paused = assistants(chat)[0];
    expect(textOf(paused)).toBe('I need your OK first.');
    expect(toolPart(paused)).toMatchObject({
      state: 'approval-requested',
      toolName: 'wire_money',
      input: { amount: 5 },
      approval: { id: 'req_wire' },
    });
    expect(paused!.metadata).toMatchObject({ stopReason: 'requires_action' });

    await chat.addToolApprovalResponse({ id: 'req_wire', approved: true });
    await expect
      .poll(() => textOf(assistants(chat)[0]), queued('the answer after the approval'))
      .toContain('resolved req_wire: "approve"');
    await expect.poll(() => chat.status, queued('the chat to be ready')).toBe('ready');
    expect(assistants(chat)).toHaveLength(1);
    expect(toolPart(assistants(chat)[0])).toMatchObject({ approval: { id: 'req_wire', approved: true } });
    expect(agents.resolved.at(-1)).toMatchObject({
      actionId: 'req_wire',
      resolution: { decision: 'approve' },
    });
  });

  it('denies an approval through addToolApprovalResponse: the tool part ends denied', async () => {
    const chat = chatOf(sid('deny'), 'pauser');
    await chat.sendMessage({ text: 'wire' });
    await chat.addToolApprovalResponse({ id: 'req_wire', approved: false, reason: 'not this month' });
    await expect
      .poll(() => textOf(assistants(chat)[0]), queued('the answer after the denial'))
      .toContain('resolved req_wire: "deny"');
    await expect
      .poll(() => toolPart(assistants(chat)[0])?.state, queued('the denied tool part'))
      .toBe('output-denied');
    expect(agents.resolved.at(-1)).toMatchObject({
      actionId: 'req_wire',
      resolution: { decision: 'deny', comment: 'not this month' },
    });
  });

  it('answers a client tool through addToolOutput', async () => {
    const chat = chatOf(sid('client-tool'), 'pauser', {
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
    });
    await chat.sendMessage({ text: 'page' });
    expect(toolPart(assistants(chat)[0])).toMatchObject({
      state: 'input-available',
      toolName: 'read_clipboard',
    });
    await chat.addToolOutput({ tool: 'read_clipboard', toolCallId: 'req_page', output: 'copied text' });
    await expect
      .poll(() => textOf(assistants(chat)[0]), queued('the answer after the output'))
      .toContain('resolved req_page: "copied text"');
    expect(toolPart(assistants(chat)[0])).toMatchObject({ state: 'output-available', output: 'copied text' });
  });

  it('edits a sent message: the conversation is cut back to it and answered again', async () => {
    const chat = chatOf(sid('edit'), 'pauser');
    await chat.sendMessage({ text: 'first' });
    const user = chat.messages[0]!;
    await chat.sendMessage({ text: 'second', messageId: user.id });
    expect(chat.messages.map((m) => [m.role, textOf(m)])).toEqual([
      ['user', 'second'],
      ['assistant', 'echo: second'],
    ]);
    const stored = await transport('pauser').loadMessages(chat.id);
    expect(stored.map((m) => [m.role, textOf(m)])).toEqual([
      ['user', 'second'],
      ['assistant', 'echo: second'],
    ]);
  });

  it('resumes a turn after a reload from the stored log: the answer once, no duplicate text', async () => {
    const id = sid('resume');
    const first = chatOf(id, 'gated');
    const open = gate('resume me');
    void first.sendMessage({ text: 'resume me' });
    await expect.poll(() => textOf(assistants(first)[0]), queued('the first half')).toBe('Hello ');
    // The page goes away: its transport and socket with it. A new page starts from the stored log.
    transports.shift()!.close();

    const reloaded = transport('gated');
    const stored = await reloaded.loadMessages(id);
    expect(stored.map((m) => [m.role, textOf(m)])).toEqual([['user', 'resume me']]);
    const second = new TestChat({ id, transport: reloaded, messages: stored });
    const resumed = second.resumeStream();
    await expect.poll(() => textOf(assistants(second)[0]), queued('the replayed first half')).toBe('Hello ');
    open();
    await resumed;
    expect(second.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(assistants(second)[0])).toMatch(/^Hello world \d+\.$/);
    // Nothing runs any more: a further resume has nothing to replay.
    expect(await reloaded.reconnectToStream({ chatId: id })).toBeNull();
  });

  it('resumes a paused turn on another device: its approval is shown again and answered there', async () => {
    const id = sid('paused');
    await chatOf(id, 'pauser').sendMessage({ text: 'wire' });

    const other = transport('pauser');
    const chat = new TestChat({
      id,
      transport: other,
      messages: await other.loadMessages(id),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.resumeStream();
    expect(assistants(chat)).toHaveLength(1);
    expect(toolPart(assistants(chat)[0])).toMatchObject({
      state: 'approval-requested',
      toolName: 'wire_money',
    });
    await chat.addToolApprovalResponse({ id: 'req_wire', approved: true });
    await expect
      .poll(() => textOf(assistants(chat)[0]), queued('the answer after the approval'))
      .toBe('I need your OK first.resolved req_wire: "approve"');
  });

  it('loadMessages gives a message its files, an answer its open approval and its rating; the approval is answered from there', async () => {
    const id = sid('load');
    const first = transport('pauser');
    const file = await first.client.upload('hello there', { name: 'a.txt' });
    const chat = new TestChat({ id, transport: first });
    await chat.sendMessage({ text: 'wire', files: [first.filePart(file)] });
    const answer = assistants(chat)[0]!;
    await first.client.session(id).feedback(answer.id, 'down');

    const other = transport('pauser');
    const stored = await other.loadMessages(id);
    expect(stored.map((m) => m.id)).toEqual([expect.stringMatching(/^msg_/), answer.id]);
    expect(stored[0]?.parts).toEqual([
      {
        type: 'file',
        mediaType: 'text/plain',
        filename: 'a.txt',
        url: `${sandbox.url}/api/files/${file.id}`,
        providerReference: { switchboard: file.id },
      },
      { type: 'text', text: 'wire', state: 'done' },
    ]);
    expect(stored[1]?.metadata).toMatchObject({ rating: 'down' });
    expect(toolPart(stored[1])).toMatchObject({
      state: 'approval-requested',
      toolName: 'wire_money',
      input: { amount: 5 },
      approval: { id: 'req_wire' },
    });
    // Without a resume: the transport knows from the stored messages that the approval is open.
    const again = new TestChat({
      id,
      transport: other,
      messages: stored,
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await again.addToolApprovalResponse({ id: 'req_wire', approved: true });
    await expect
      .poll(() => textOf(assistants(again)[0]), queued('the answer after the approval'))
      .toContain('resolved req_wire: "approve"');
  });

  it('stop() cancels the running turn', async () => {
    const id = sid('stop');
    const chat = chatOf(id, 'gated');
    gate('stop me');
    void chat.sendMessage({ text: 'stop me' });
    await expect.poll(() => textOf(assistants(chat)[0]), queued('the first half')).toBe('Hello ');
    await chat.stop();
    expect(chat.status).toBe('ready');
    await expect.poll(() => aborted.has('stop me'), queued('the agent to be stopped')).toBe(true);
    await expect
      .poll(async () => {
        const res = await fetch(`${sandbox.url}/api/sessions/${encodeURIComponent(id)}`, {
          headers: { authorization: `Bearer ${await mintDevToken({ user: 'alice', tenant: 'acme' })}` },
        });
        return ((await res.json()) as { last_run?: { status?: string } }).last_run?.status;
      }, queued('the run to be cancelled'))
      .toBe('cancelled');
  });
});
