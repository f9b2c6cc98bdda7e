import type { Runtime } from '../config/index.ts';
import { ttlAt } from './keys.ts';

/** The item kinds whose retention is a setting (`retention.*Days`). */
export type RetainedKind = 'sessions' | 'messages' | 'events';

const DAY_MS = 86_400_000;

/** Days an item of this kind is kept, or undefined when it is kept until its session is deleted. */
export function retentionDays(rt: Runtime, kind: RetainedKind): number | undefined {
  const { sessionsDays, messagesDays, eventsDays } = rt.settings.retention;
  if (kind === 'messages') return messagesDays ?? sessionsDays;
  if (kind === 'events') return eventsDays ?? sessionsDays;
  return sessionsDays;
}

/** The `ttl` attribute of an item of this kind written at `now`, or nothing when it does not expire. */
export function retentionTtl(rt: Runtime, kind: RetainedKind, now = rt.clock()): { ttl?: number } {
  const days = retentionDays(rt, kind);
  return days === undefined ? {} : { ttl: ttlAt(now + days * DAY_MS) };
}
