import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { jsonSchemasReady } from '../contract/index.ts';
import { type SweepReport, sweep } from '../sweep/index.ts';
import { instrumentHandler } from '../telemetry/index.ts';
import { lazyRuntime } from './runtime.ts';

/** The sweep's Lambda handler, run by the EventBridge rule once a minute. */
export function createSweepHandler(app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime('sweep', runtime);
  const handler = middy<ScheduledEvent, SweepReport, Error, Context>().handler(async () => {
    await jsonSchemasReady();
    return sweep(rt(), app, rt().clock());
  });
  return instrumentHandler(rt, handler);
}
