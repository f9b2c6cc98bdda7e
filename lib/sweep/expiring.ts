import type { Runtime } from '../config/index.ts';
import { type DomainEvent, pauseExpiring, publishEvents, publishing } from '../events/index.ts';
import { actionsDueBy, getAction, getSession, markExpiringAnnounced } from '../store/index.ts';

/**
 * Announces every pending request that lapses within `events.expiringLeadMinutes` (`Pause
 * Expiring`), found through the due index. Each is marked by one conditional write before it is
 * announced, so two sweeps never announce one request twice; a publish that fails after the mark
 * is logged and not tried again (an announcement is a reminder, the lapse itself still comes).
 * Nothing is read when no events are published. Returns how many were announced.
 */
export async function announceExpiring(rt: Runtime, now: number, lookbackHours: number): Promise<number> {
  if (!publishing(rt)) return 0;
  const lead = rt.settings.events.expiringLeadMinutes;
  const events: DomainEvent[] = [];
  for (const due of await actionsDueBy(rt, now, now + lead * 60_000, lookbackHours)) {
    const action = await getAction(rt, due.sessionId, due.actionId);
    if (action?.status !== 'pending' || action.expiringAnnouncedAt || action.expiresAt <= now) continue;
    const session = await getSession(rt, due.sessionId);
    const marked = session && (await markExpiringAnnounced(rt, action, now));
    if (session && marked) events.push(pauseExpiring(session, marked, lead));
  }
  await publishEvents(rt, events);
  return events.length;
}
