import * as z from 'zod';

/*
 * The sections of the settings (lib/config/settings.ts) that one concern reads: its rate limits
 * (lib/limits), budgets (lib/usage), domain events (lib/events) and retention. Declared here, on the
 * ground floor, because the runtime every layer is handed carries the settings whole.
 */

const days = () => z.number().int().min(1).max(3650).optional();

/** The `retention` settings: days, each counted from when its item was last written. */
export const RetentionSettingsSchema = z
  .object({
    /** Days a session (its own item and its runs) is kept after its last message. */
    sessionsDays: days(),
    /** Days a message is kept after it was stored. Default: `sessionsDays`. */
    messagesDays: days(),
    /**
     * Days an entry of the event log is kept after it was written. Default: `sessionsDays`; never
     * shorter, so that a session never outlives its log's end (its next seq is read from there).
     */
    eventsDays: days(),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.eventsDays === undefined) return;
    if (value.sessionsDays === undefined || value.eventsDays < value.sessionsDays)
      ctx.addIssue({
        code: 'custom',
        path: ['eventsDays'],
        message: `must be at least retention.sessionsDays (${value.sessionsDays ?? 'unset: sessions are kept'}): a session's next event number is read from the end of its log`,
      });
  });

/** One fixed-window rate rule: at most `requests` in every window of `windowSeconds`. */
export const RateRuleSchema = z
  .object({
    /** How many requests (or frames) one subject may make in one window. */
    requests: z.number().int().min(1).max(1_000_000),
    /** The window's length; windows start at multiples of it (UTC epoch). */
    windowSeconds: z.number().int().min(1).max(3_600),
  })
  .strict();

/** A rule, or `false` to switch it off. */
export const RateRuleOrOffSchema = z.union([RateRuleSchema, z.literal(false)]);

/** The `limits` settings: the runtime's own rate limits, per owner and per WebSocket connection. */
export const LimitsSettingsSchema = z
  .object({
    /**
     * Requests one owner (a user within a tenant) may make: HTTP requests and WebSocket frames
     * together, over every connection of theirs.
     */
    perUser: RateRuleOrOffSchema.default({ requests: 600, windowSeconds: 60 }),
    /** Frames one WebSocket connection may send. */
    perConnection: RateRuleOrOffSchema.default({ requests: 120, windowSeconds: 60 }),
  })
  .strict();

/** A rate rule. */
export type RateRule = z.infer<typeof RateRuleSchema>;

/** The validated `limits` settings. */
export type LimitsSettings = z.infer<typeof LimitsSettingsSchema>;

/** A rolling-day spending limit in US dollars, or `false` (the default) for none. */
const DailyLimitSchema = z.union([z.number().finite().positive(), z.literal(false)]);

/**
 * The `budgets` settings: spending limits over a rolling day (the last 24 hours), per owner (a
 * user within a tenant) and per tenant, over every session and agent. Both are off by default.
 */
export const BudgetSettingsSchema = z
  .object({
    /** What one owner's sessions may spend in any 24 hours. */
    perUserDailyUsd: DailyLimitSchema.default(false),
    /** What every session of one tenant may spend in any 24 hours (callers without a tenant have none). */
    perTenantDailyUsd: DailyLimitSchema.default(false),
  })
  .strict();

/** The validated `budgets` settings. */
export type BudgetSettings = z.infer<typeof BudgetSettingsSchema>;

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
