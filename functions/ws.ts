import app from '#agents';
import { createWebSocketHandler } from '../lib/handlers/index.ts';

/** WebSocket API entry point: `$connect`, `$disconnect`, `$default` and every `action` route. */
export const handler = createWebSocketHandler(app);
