// @vitest-environment happy-dom
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
// The limits alone: this file runs in a DOM environment, where the sandbox's modules do not load.
import { TEST_LIMITS } from '../../bench/support/limits.ts';
import { createClient, type SwitchboardClient, type WebSocketConstructor } from '../../client/index.ts';
import { AgentPicker, SwitchboardChat, ThreadList } from '../../react-dom/index.ts';
import { DevProcess } from '../support/dev-process.ts';
import { queued } from '../support/wait.ts';

/**
 * `switchboard/react-dom` with React Testing Library, against a real sandbox (`switchboard dev` in a
 * process of its own, serving test/support/hook-agents.ts): the whole chat in one component, a
 * team's own card through its slot, the thread list and the agent picker.
 */
let dev: DevProcess;
let client: SwitchboardClient;
const work = mkdtempSync(join(tmpdir(), 'switchboard-react-dom-'));
let n = 0;
const sid = (name: string) => {
  n += 1;
  return `dom-${name}-${n}-${Date.now()}`;
};

beforeAll(async () => {
  const settings = join(work, 'settings.json');
  writeFileSync(settings, JSON.stringify({ limits: TEST_LIMITS }));
  dev = await DevProcess.start(
    ['--agents', 'test/support/hook-agents.ts', '--no-watch', '--settings', settings, '--user', 'carol'],
    { LOG_LEVEL: 'ERROR' },
  );
  const wsUrl = /WebSocket:\s+(ws:\/\/\S+)/.exec(dev.stdout)?.[1] ?? '';
  const token = /^ {2}carol: (\S+)$/m.exec(dev.stdout)?.[1] ?? '';
  expect([dev.url, wsUrl, token].every(Boolean)).toBe(true);
  client = createClient({
    url: dev.url,
    wsUrl,
    token,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
}, 90_000);
afterEach(cleanup);
afterAll(async () => {
  client?.close();
  await dev?.stop();
  rmSync(work, { recursive: true, force: true });
}, 30_000);

/** Resolves once `find` finds something, polling (the turn runs in the sandbox). */
const appears = <T,>(find: () => T | null, what: string) =>
  expect.poll(find, queued(what)).not.toBeNull() as unknown as Promise<void>;

const send = (text: string) => {
  fireEvent.change(screen.getByLabelText('Message'), { target: { value: text } });
  fireEvent.click(screen.getByRole('button', { name: 'Send' }));
};

describe('<SwitchboardChat> against the sandbox', () => {
  it('a whole chat: a suggestion sent, its answer, a team’s own approval card through renderRequest, ratings once it ended', async () => {
    const cards: string[] = [];
    render(
      <SwitchboardChat
        client={client}
        sessionId={sid('chat')}
        agentId="pauser"
        title="Payments"
        suggestions={['hello there']}
        renderRequest={({ part, live }) => {
          // The team's card for approvals; the default for the rest.
          if (part.request.type !== 'tool_approval') return undefined;
          cards.push(part.state);
          return (
            <div data-testid="team-card">
              Team card: {part.request.title}
              <button
                type="button"
                disabled={part.state !== 'open'}
                onClick={() => live?.type === 'tool_approval' && void live.approve()}
              >
                OK, wire it
              </button>
            </div>
          );
        }}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Payments' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'hello there' }));
    await appears(() => screen.queryByText('echo: hello there'), 'the echo');

    send('wire');
    await appears(() => screen.queryByTestId('team-card'), 'the team’s card');
    expect(screen.getByTestId('team-card').textContent).toContain('Team card: Wire $5?');
    // No default card beside it, and no ratings under an answer that waits on it.
    expect(document.querySelector('.card.tool_approval')).toBeNull();
    const log = screen.getByRole('log', { name: 'Conversation' });
    expect(within(log).queryAllByRole('button', { name: 'Good answer' })).toHaveLength(1);
    fireEvent.click(await screen.findByRole('button', { name: 'OK, wire it' }));
    await appears(() => screen.queryByText('resolved req_wire: "approve"'), 'the approved answer');
    expect(cards.at(-1)).toBe('resolved');
    await appears(
      // The echo's, the answer that asked (ended once its card is settled), and the approved answer's.
      () => (within(log).queryAllByRole('button', { name: 'Good answer' }).length === 3 ? true : null),
      'ratings under the ended answers',
    );
    const good = within(log).getAllByRole('button', { name: 'Good answer' }).at(-1)!;
    fireEvent.click(good);
    await appears(
      () => (good.getAttribute('aria-pressed') === 'true' ? true : null),
      'the rating to be shown pressed',
    );
  });

  it('the connection and the turn are said in words; Cancel is enabled only while a turn runs', async () => {
    render(<SwitchboardChat client={client} sessionId={sid('status')} agentId="paced" />);
    await appears(() => screen.queryByText('connected'), 'the socket to open');
    const cancel = screen.getByRole('button', { name: 'Cancel' }) as HTMLButtonElement;
    expect(cancel.disabled).toBe(true);
    send('400');
    await appears(() => screen.queryByText('agent is answering…'), 'the turn to run');
    expect(cancel.disabled).toBe(false);
    fireEvent.click(cancel);
    await appears(() => screen.queryByText('Stopped.'), 'the stop');
    await appears(() => (cancel.disabled ? true : null), 'Cancel to be disabled again');
  });
});

describe('<ThreadList> and <AgentPicker> against the sandbox', () => {
  it('lists the caller’s sessions by their first message, marks the chosen one, and picks one', async () => {
    const first = sid('thread');
    const session = client.session(first, { agentId: 'pauser' });
    await session.send('a conversation about invoices');
    const picked: string[] = [];
    render(<ThreadList client={client} selected={first} onSelect={(s) => picked.push(s.id)} />);
    const item = await screen.findByRole(
      'button',
      { name: /a conversation about invoices/ },
      { timeout: 10_000 },
    );
    expect(item.getAttribute('aria-current')).toBe('true');
    expect(item.textContent).toContain('pauser');
    fireEvent.click(item);
    expect(picked).toEqual([first]);
  });

  it('lists the agents in a labelled select and hands on the one picked', async () => {
    const chosen: string[] = [];
    render(<AgentPicker client={client} value="pauser" onChange={(agent) => chosen.push(agent.id)} />);
    const select = (await screen.findByLabelText('Agent')) as HTMLSelectElement;
    await appears(() => (select.options.length > 1 ? true : null), 'the agents');
    expect(select.value).toBe('pauser');
    expect([...select.options].map((option) => option.value)).toContain('demo');
    fireEvent.change(select, { target: { value: 'demo' } });
    expect(chosen).toEqual(['demo']);
  });
});
