import type { Switchboard } from '../agents/index.ts';
import type { Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { ChatRequest } from '../contract/index.ts';
import { queueTurn } from './queue-turn.ts';
import { resolveSession } from './resolve-session.ts';
import type { Accepted, BeforeEnqueue } from './types.ts';

/**
 * A new message: its session checked (or created), then its turn recorded and queued. A retry of a
 * request id answers the turn the first send queued.
 */
export async function submitMessage(
  rt: Runtime,
  app: Switchboard,
  identity: Identity,
  request: ChatRequest,
  beforeEnqueue?: BeforeEnqueue,
): Promise<Accepted> {
  const { session, requestId } = await resolveSession(rt, app, identity, request);
  return queueTurn(rt, app, identity, { session, request, requestId, beforeEnqueue });
}
