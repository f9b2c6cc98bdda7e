import app from '#agents';
import { createSweepHandler } from '../lib/handlers/index.ts';

/** EventBridge schedule entry point: removes stale connections (and later, lapsed requests). */
export const handler = createSweepHandler(app);
