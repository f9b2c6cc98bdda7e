import app from '#agents';
import { createWorkerHandler } from '../lib/handlers/index.ts';

/** SQS event source entry point: runs one queued turn per record. */
export const handler = createWorkerHandler(app);
