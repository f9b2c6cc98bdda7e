import { expiryOf } from './auth';

/**
 * Where the app finds Switchboard, from the environment at bundle time (Expo inlines
 * `process.env.EXPO_PUBLIC_*`; put them in `.env.local`, which git ignores, or export them before
 * `npm start`). Nothing here is a secret of the app: a build holds what it was bundled with.
 *
 * For `switchboard dev` on your computer, use the address the phone or the emulator reaches it at
 * (the Android emulator sees the computer as 10.0.2.2; a phone on the same network, its LAN
 * address), and start the sandbox with `--host 0.0.0.0 --allow-host` that name.
 */
export const API_URL = process.env.EXPO_PUBLIC_SWITCHBOARD_URL ?? 'http://10.0.2.2:3000';

/** The WebSocket API: EXPO_PUBLIC_SWITCHBOARD_WS_URL, else the sandbox's (`/ws` on the same host). */
export const WS_URL = process.env.EXPO_PUBLIC_SWITCHBOARD_WS_URL ?? `${API_URL.replace(/^http/, 'ws')}/ws`;

/** The agent the app talks to: the demo agent of `switchboard dev --agents ../../demo/agents.ts` by default. */
export const AGENT_ID = process.env.EXPO_PUBLIC_SWITCHBOARD_AGENT ?? 'demo';

/**
 * Your sign-in goes here: return the signed-in user's current access token (your identity
 * provider's SDK refreshes it), e.g. `(await auth.currentSession()).accessToken`. The client asks
 * again through `tokenProvider` (auth.ts) when the one it holds is about to expire.
 *
 * The default is the sandbox's: a token of its development key, `npx switchboard token --user alice`,
 * in EXPO_PUBLIC_SWITCHBOARD_TOKEN. It cannot be renewed from the app: once it expires (1 hour by
 * default, `--ttl` for longer), make another and reload.
 */
export async function fetchToken(): Promise<string> {
  const token = process.env.EXPO_PUBLIC_SWITCHBOARD_TOKEN;
  if (!token)
    throw new Error('No token: set EXPO_PUBLIC_SWITCHBOARD_TOKEN (npx switchboard token --user alice).');
  const expiresAt = expiryOf(token);
  if (expiresAt !== undefined && expiresAt <= Date.now())
    throw new Error(
      'EXPO_PUBLIC_SWITCHBOARD_TOKEN has expired: make another (npx switchboard token) and reload.',
    );
  return token;
}
