import * as z from 'zod';

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

/** The window a moment falls in, and how long until the next one starts. */
export interface RateWindow {
  /** Epoch seconds of the window's start: a multiple of the rule's `windowSeconds`. */
  start: number;
  /** Whole seconds until the next window starts, at least 1: the `Retry-After` of a refusal. */
  retryAfterSeconds: number;
}
