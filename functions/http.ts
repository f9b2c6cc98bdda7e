import app from '#agents';
import { createHttpHandler } from '../lib/handlers/index.ts';

/** HTTP API (payload 2.0) entry point: every `/api/...` route. */
export const handler = createHttpHandler(app);
