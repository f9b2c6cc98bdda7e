import type { HostAgentRegistration, ResolvedHitl, Switchboard } from '../agents/index.ts';
import type { requestContextOf } from '../auth/index.ts';
import type { Runtime } from '../config/index.ts';
import type { RunRecord, SessionRecord } from '../store/index.ts';
import type { TurnAccounting } from '../usage/index.ts';
import type { Stopping } from './call-agent.ts';
import type { EventStream } from './event-stream.ts';

/** What every kind of run works with. */
export interface RunScope {
  rt: Runtime;
  app: Switchboard;
  agent: HostAgentRegistration;
  hitl: ResolvedHitl;
  run: RunRecord;
  session: SessionRecord;
  stream: EventStream;
  context: ReturnType<typeof requestContextOf>;
  log: Runtime['logger'];
  stopping: Stopping;
  /** How the run is priced, the session's spend before it and its budget. */
  accounting: TurnAccounting;
}
