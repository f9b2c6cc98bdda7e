import type { Runtime } from '../config/index.ts';
import { stopRuns } from '../runs/index.ts';
import { deleteSuspension, getSuspension, putSuspension, type SuspensionRecord } from '../store/index.ts';
import { ownedItems, tenantOwners } from './owners.ts';

/** What suspending a tenant did. */
export interface Suspended {
  tenant: string;
  suspendedAt: string;
  /** The runs asked to stop (reason `user`), session by session. */
  stopped: { sessionId: string; runIds: string[] }[];
}

/**
 * `switchboard tenant suspend`: from now on the tenant's new messages are refused (403
 * `tenant_suspended`, read where a message is accepted), and its running and queued turns are asked
 * to stop. The suspension is written first, so that no turn starts after the stops were asked.
 */
export async function suspendTenant(rt: Runtime, tenant: string, reason?: string): Promise<Suspended> {
  const suspendedAt = new Date(rt.clock()).toISOString();
  await putSuspension(rt, { tenant, suspendedAt, ...(reason && { reason }) });
  const stopped: Suspended['stopped'] = [];
  for (const owner of await tenantOwners(rt, tenant)) {
    for (const sessionId of (await ownedItems(rt, owner)).sessions) {
      const runIds = await stopRuns(rt, sessionId, 'user');
      if (runIds.length > 0) stopped.push({ sessionId, runIds });
    }
  }
  return { tenant, suspendedAt, stopped };
}

/** `switchboard tenant resume`: lifts the suspension; false when the tenant was not suspended. */
export function resumeTenant(rt: Runtime, tenant: string): Promise<boolean> {
  return deleteSuspension(rt, tenant);
}

/** `switchboard tenant status`: the tenant's suspension, if any. */
export function tenantStatus(rt: Runtime, tenant: string): Promise<SuspensionRecord | undefined> {
  return getSuspension(rt, tenant);
}
