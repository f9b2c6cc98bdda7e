import type { Switchboard } from '../agents/index.ts';
import type { Runtime } from '../config/index.ts';
import { sweepExpiredFiles, sweepOrphanFiles } from '../files/index.ts';
import { dueConnections, removeConnection } from '../store/index.ts';
import { isGone } from '../transport/index.ts';
import { announceExpiring } from './expiring.ts';
import { sweepLapses } from './lapses.ts';
import { requeueLostRuns } from './requeue.ts';

/** What one sweep did. */
export interface SweepReport {
  removedConnections: number;
  lapsed: { denied: number; cancelled: number; raced: number };
  /** Pending requests announced as about to lapse (`Pause Expiring`) by this sweep. */
  expiring: number;
  requeuedRuns: number;
  expiredFiles: number;
  /** Objects under `files/` that no record names, removed (see `sweepOrphanFiles`: not every sweep lists them). */
  orphanFiles: number;
}

/** How far back the sweep looks for due items: a missed hour of sweeps is still caught up. */
const LOOKBACK_HOURS = 3;

async function sweepConnections(rt: Runtime, now: number): Promise<number> {
  const stale = await dueConnections(rt, now, LOOKBACK_HOURS);
  let removed = 0;
  for (const connectionId of stale) {
    if (rt.connections) {
      const [client, { DeleteConnectionCommand }] = await Promise.all([
        rt.connections(),
        import('../aws/sdk/connections/close.ts'),
      ]);
      // Closed already (410) is the usual case. A close that failed (throttling or a 5xx past the
      // SDK's retries) keeps the record, so that the next sweep closes the connection, rather than
      // leaving it open with nothing that knows it.
      const closed = await client.send(new DeleteConnectionCommand({ ConnectionId: connectionId })).then(
        () => true,
        (error: unknown) => {
          if (isGone(error)) return true;
          rt.logger.warn('Could not close an expired connection: the next sweep tries again', {
            connectionId,
            error: String(error),
          });
          return false;
        },
      );
      if (!closed) continue;
    }
    await removeConnection(rt, connectionId);
    removed += 1;
  }
  return removed;
}

/**
 * The sweep the EventBridge rule runs once a minute: lapsed requests (hitl.onTimeout), runs whose
 * job was lost, requests about to lapse (`Pause Expiring`), connections past API Gateway's two-hour limit whose `$disconnect` never came, and
 * files past `files.retentionDays`.
 * Everything is found through the due index; nothing scans. The one listing, of the bucket's
 * objects that no file record names, runs once every `files.orphanSweepHours`, a few pages a sweep.
 */
export async function sweep(rt: Runtime, app: Switchboard, now: number): Promise<SweepReport> {
  const report = {
    lapsed: await sweepLapses(rt, app, now, LOOKBACK_HOURS),
    // After the lapses: a request that lapsed already is decided, and not announced as lapsing.
    expiring: await announceExpiring(rt, now, LOOKBACK_HOURS),
    requeuedRuns: await requeueLostRuns(rt, now, LOOKBACK_HOURS),
    removedConnections: await sweepConnections(rt, now),
    expiredFiles: await sweepExpiredFiles(rt, LOOKBACK_HOURS),
    orphanFiles: await sweepOrphanFiles(rt),
  };
  if (report.removedConnections > 0)
    rt.logger.info('Removed stale connections', { count: report.removedConnections });
  return report;
}
