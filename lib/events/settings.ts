import * as z from 'zod';

/**
 * The `events` block of the settings: whether the runtime publishes its domain events on the
 * deployment's EventBridge bus (SWITCHBOARD_EVENT_BUS, set by the construct), and how long before a
 * pause's expiry `Pause Expiring` is sent. Without a bus nothing is published, whatever `enabled` says.
 */
export const EventsSettingsSchema = z
  .object({
    /** Publish domain events when the deployment has a bus. */
    enabled: z.boolean().default(true),
    /**
     * How long before a pause lapses the sweep sends `Pause Expiring` for it (once). The sweep runs
     * once a minute, so the event comes up to a minute later than this lead.
     */
    expiringLeadMinutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60)
      .default(5),
  })
  .strict();

/** The validated `events` settings. */
export type EventsSettings = z.infer<typeof EventsSettingsSchema>;
