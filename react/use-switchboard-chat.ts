import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { type ClientOptions, createClient } from '../client/index.ts';
import { chatStore } from './store.ts';
import type { SwitchboardChat, UseSwitchboardChatOptions } from './types.ts';

/**
 * A Switchboard conversation as React state: its messages (text, tool calls and results, host
 * actions, requests, files), its status and connection, what it waits on, and the requests a host
 * makes. It rides on the client (`switchboard/client`): one WebSocket per client, resumed from the
 * last applied seq, heartbeats, each event applied once and in order. State is read with
 * `useSyncExternalStore`, so a concurrent render never mixes two states; StrictMode's second mount
 * reuses the first one's session and socket.
 *
 * With `client`, the client is the app's (make it once, outside components). With `url` (and
 * `wsUrl`, `token`, any client option), the hook makes one, once per `url` and `wsUrl`, and closes
 * it when the component unmounts.
 *
 * @example
 * ```tsx
 * import { useSwitchboardChat } from 'switchboard/react';
 *
 * function Chat({ client }: { client: SwitchboardClient }) {
 *   const { messages, status, requests, send, stop } = useSwitchboardChat({
 *     client,
 *     sessionId: 'support-42',
 *     agentId: 'support',
 *     actions: { select_issue: ({ number }: { number: number }) => ui.select(number) },
 *   });
 *   return (
 *     <>
 *       {messages.map((m) => <p key={m.id}>{m.text}</p>)}
 *       {requests.map((r) => r.type === 'tool_approval' && <button key={r.id} onClick={() => r.approve()}>Approve</button>)}
 *       <button onClick={() => (status === 'streaming' ? stop() : send('Where is my order?'))}>Go</button>
 *     </>
 *   );
 * }
 * ```
 */
export function useSwitchboardChat(options: UseSwitchboardChatOptions): SwitchboardChat {
  const given = options.client;
  // Bumped when a mount finds its store already stopped (a subtree that <Activity> hid and shows
  // again): a new store, and a new client when the hook makes its own, take over.
  const [generation, setGeneration] = useState(0);
  // The token of the latest render, for a client the hook makes (a token function is often inline).
  const token = useRef(options.token);
  const url = given ? undefined : options.url;
  const wsUrl = given ? undefined : options.wsUrl;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the client is made once per url and wsUrl; its other options are read then.
  const owned = useMemo(
    () =>
      url === undefined
        ? undefined
        : createClient({
            ...(options as ClientOptions),
            token: async () => {
              const current = token.current;
              return (typeof current === 'function' ? await current() : current) ?? '';
            },
          }),
    [url, wsUrl, generation],
  );
  const client = given ?? owned;
  if (!client) throw new Error('useSwitchboardChat: pass a client or a url.');
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new generation asks the registry again.
  const store = useMemo(
    () => chatStore(client, options.sessionId, client === owned),
    [client, owned, options.sessionId, generation],
  );
  const { agentId, hostContext, actions, clientTools } = options;
  // Declared before the mount effect, so the first join already has the handlers and the context.
  useEffect(() => {
    token.current = options.token;
    store.configure({ agentId, hostContext, actions, clientTools });
  });
  useEffect(() => {
    if (store.disposed) {
      setGeneration((n) => n + 1);
      return;
    }
    store.retain();
    return () => store.release();
  }, [store]);
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  return useMemo(() => ({ ...state, ...store.commands, client }), [state, store, client]);
}
