import type { ScheduledEvent } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { type SweepReport, sweep } from '../sweep/index.ts';
import { pipeline, schemas, telemetry } from './middleware/index.ts';
import { lazyRuntime } from './runtime.ts';

/** The sweep's Lambda handler, run by the EventBridge rule once a minute. */
export function createSweepHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('sweep', runtime);
  return pipeline<ScheduledEvent, SweepReport>(
    [telemetry(rt, undefined, () => ({ name: 'sweep' })), schemas],
    async () => sweep(rt(), app, rt().clock()),
  );
}
