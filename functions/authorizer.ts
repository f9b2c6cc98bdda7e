import { createConnectAuthorizer, verifierFromEnv } from '../lib/auth/index.ts';

/** WebSocket API `$connect` Lambda authoriser: verifies the host's JWT (built-in `auth` of the stack). */
export const handler = createConnectAuthorizer({ verifier: verifierFromEnv() });
