/**
 * The demo host: a React app on `switchboard/react` (the chat, beside an issue list that stands for
 * the host's own app) and, at `?view=use-chat`, the same agent through the AI SDK's `useChat` with
 * `SwitchboardChatTransport`. `switchboard dev` serves it at `/`, built for the browser.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { SwitchboardChatTransport } from '../ai-sdk/index.ts';
import { createClient, type HostContextInput } from '../client/index.ts';
import { DEMO_AGENT, DemoApp } from './demo-app.tsx';
import { UseChatDemo } from './use-chat-demo.tsx';

// Who the page is: the sandbox hands it a token for its demo user (/sandbox/token exists only in
// the sandbox). Without one (a sandbox started with --anonymous) it sends none. A real host gets
// its token from its identity provider.
let token: string | null | undefined;
let tokenExpires = 0;
async function currentToken(): Promise<string> {
  if (token !== undefined && Date.now() < tokenExpires) return token ?? '';
  const res = await fetch('/sandbox/token').catch(() => undefined);
  if (res?.ok) {
    const body = (await res.json()) as { token: string; expires_in: number };
    token = body.token;
    tokenExpires = Date.now() + (body.expires_in - 60) * 1000;
  } else {
    token = null;
    tokenExpires = Number.POSITIVE_INFINITY;
  }
  return token ?? '';
}

/** One client for the page: one WebSocket, whichever view shows. */
const client = createClient({
  url: location.origin,
  wsUrl: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`,
  token: currentToken,
});

const params = new URLSearchParams(location.search);
const root = createRoot(document.getElementById('root')!);

if (params.get('view') === 'use-chat') {
  // The chat's id lives in the address, so a reload resumes the same chat.
  const fresh = !params.has('chat');
  const chatId = params.get('chat') ?? `chat-${crypto.randomUUID()}`;
  if (fresh) {
    params.set('chat', chatId);
    history.replaceState(null, '', `?${params}`);
  }
  // A chat opened from the hook view names no agent: it is the session's.
  const agentId =
    params.get('agent') ??
    (fresh
      ? undefined
      : await client
          .request<{ agent_id?: string }>('GET', `/api/sessions/${encodeURIComponent(chatId)}`)
          .then(
            (session) => session.agent_id,
            () => undefined,
          ));
  // The page's view goes with every message (the issue list, for the demo agent): read at each send.
  const context: { current: HostContextInput | undefined } = { current: undefined };
  const transport = new SwitchboardChatTransport({
    client,
    ...(agentId && { agentId }),
    hostContext: () => context.current,
  });
  // The agent a new chat goes to, when the address names none: the server's default.
  const shownAgent =
    agentId ??
    (await client.agents().then(
      (list) => list.default_agent_id,
      () => null,
    ));
  // A chat this page just made does not exist yet: nothing to read, no turn to resume.
  const initialMessages = fresh ? [] : await transport.loadMessages(chatId);
  root.render(
    <UseChatDemo
      showsApp={shownAgent === DEMO_AGENT}
      context={context}
      transport={transport}
      chatId={chatId}
      initialMessages={initialMessages}
      resume={!fresh}
      {...(agentId && { agentId })}
    />,
  );
} else {
  // The hook keeps one socket and one send through StrictMode's second mount.
  root.render(
    <StrictMode>
      <DemoApp client={client} requestedAgent={params.get('agent') ?? undefined} />
    </StrictMode>,
  );
}
