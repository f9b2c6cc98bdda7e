import { DeleteConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import middy from '@middy/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { dueConnections, removeConnection } from '../store/index.ts';
import { lazyRuntime } from './runtime.ts';

/** What one sweep did. */
export interface SweepReport {
  removedConnections: number;
}

/** How far back the sweep looks for due items: a missed hour of sweeps is still caught up. */
const LOOKBACK_HOURS = 3;

/** Removes connections past API Gateway's two-hour limit whose `$disconnect` never arrived. */
export async function sweep(rt: Runtime, now = Date.now()): Promise<SweepReport> {
  const stale = await dueConnections(rt, now, LOOKBACK_HOURS);
  for (const connectionId of stale) {
    await rt.connections
      ?.send(new DeleteConnectionCommand({ ConnectionId: connectionId }))
      .catch(() => undefined /* already closed: the usual case */);
    await removeConnection(rt, connectionId);
  }
  if (stale.length > 0) rt.logger.info('Removed stale connections', { count: stale.length });
  return { removedConnections: stale.length };
}

/** The sweep's Lambda handler, run by the EventBridge rule once a minute. */
export function createSweepHandler(_app: Switchboard, runtime?: Runtime) {
  const rt = lazyRuntime(runtime);
  return middy<ScheduledEvent, SweepReport, Error, Context>().handler(async (event) =>
    sweep(rt(), Date.parse(event.time) || Date.now()),
  );
}
