import type { Switchboard } from '../agents/index.ts';
import type { Identity } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';

/**
 * An action a caller takes, whatever door it came in by: the runtime, the server, the caller (as the
 * pipeline's `identify` found them) and the input a transport parsed; it answers a result the
 * transport renders (a JSON response, an `assistant:*` frame, an AG-UI stream). A body that may only
 * be read after the ownership gate comes as a function the command calls once the gate has let the
 * caller in (ids' syntax → gate → body, see lib/sessions/access.ts).
 */
export type Command<I, O> = (rt: Runtime, app: Switchboard, caller: Identity, input: I) => Promise<O>;

/** A session named by the caller, by its id or its ref. */
export interface SessionInput {
  session_id: string;
}
