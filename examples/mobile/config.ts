/**
 * Where the app finds Switchboard. For `switchboard dev` on your computer, use the address the phone
 * or the emulator reaches it at (the Android emulator sees the computer as 10.0.2.2; a phone on the
 * same network, its LAN address). Start the sandbox with `--host 0.0.0.0` and allow that name, as it
 * answers no other: `--allow-host 10.0.2.2` (or `--allow-host` the LAN address).
 */
export const API_URL = 'http://10.0.2.2:3000';
export const WS_URL = 'ws://10.0.2.2:3000/ws';

/** A token of the sandbox's development key (`npx switchboard token --user alice`); your sign-in's in an app. */
export const TOKEN = 'paste a token here';

/** The agent the app talks to: the demo agent of `switchboard dev --agents demo/agents.ts`. */
export const AGENT_ID = 'demo';
