import * as z from 'zod';
import { HostActionSchema, ToolNameSchema } from '../contract/host-context.ts';
import { parseOrThrow } from '../errors/index.ts';
import {
  BudgetSettingsSchema,
  EventsSettingsSchema,
  LimitsSettingsSchema,
  RetentionSettingsSchema,
} from './settings-sections.ts';

/**
 * Operational settings of a deployment (the construct's `settings` prop, SWITCHBOARD_SETTINGS
 * as JSON). Every field has a default; an unknown or out-of-range one fails at start-up.
 */
export const SettingsSchema = z
  .object({
    stream: z
      .object({
        /**
         * The flush window: events gathered from the first of a window for this long are stored as one
         * item and sent to each connection as one frame (text of one message becoming one delta); 0
         * stores and sends each event on its own.
         */
        coalesceMs: z.number().int().min(0).max(1000).default(250),
        /** How often a streaming turn reads the session's connections again, to find one that joined. */
        subscriberRefreshMs: z.number().int().min(100).max(60_000).default(1_000),
        /** The most characters one text event carries; more starts a new event. */
        maxDeltaChars: z.number().int().min(100).max(32_000).default(8_000),
      })
      .strict()
      .prefault({}),
    runs: z
      .object({
        /** How long a worker's claim on a turn lasts without renewal. */
        leaseMs: z.number().int().min(1_000).max(900_000).default(60_000),
        /** How long a cancel hook (and, later, an agent told to stop) is waited for before it is given up on. */
        cancelGraceMs: z.number().int().min(0).max(60_000).default(5_000),
        /** How often a worker looks for a cancel of the runs it holds (one eventually consistent BatchGetItem of one attribute each). */
        cancelPollMs: z.number().int().min(50).max(10_000).default(500),
      })
      .strict()
      .prefault({}),
    requests: z
      .object({
        /** How long a request id is remembered, so that a retry starts no second turn. */
        retentionHours: z
          .number()
          .int()
          .min(1)
          .max(24 * 90)
          .default(24 * 7),
      })
      .strict()
      .prefault({}),
    tools: z
      .object({
        /** Host tools offered every turn (the seed's TOOLS__HOST_TOOLS): the host performs them. */
        hostTools: z.array(HostActionSchema).default([]),
        /**
         * Page scopes (the seed's TOOLS__PAGE_SCOPES): view name → the backend tools offered on that
         * view. A backend tool named in no scope is offered everywhere.
         */
        pageScopes: z.record(z.string(), z.array(ToolNameSchema)).default({}),
      })
      .strict()
      .prefault({}),
    files: z
      .object({
        /** The largest file POST /api/files accepts (bytes sent as the request body are capped at 4 MiB). */
        maxBytes: z
          .number()
          .int()
          .min(1)
          .max(5 * 1024 ** 3)
          .default(100 * 1024 ** 2),
        /**
         * How many bytes of files one owner (a user within a tenant) may upload in all; an upload past
         * it is refused with 413 `file_quota_exceeded`.
         */
        quotaBytesPerUser: z
          .number()
          .int()
          .min(1)
          .max(5 * 1024 ** 4)
          .default(1024 ** 3),
        /** How many files may be attached to one session's messages; a message past it is refused (413 `file_quota_exceeded`). */
        maxFilesPerSession: z.number().int().min(1).max(100_000).default(100),
        /** How many bytes of files may be attached to one session's messages, each file counted once. */
        quotaBytesPerSession: z
          .number()
          .int()
          .min(1)
          .max(5 * 1024 ** 4)
          .default(256 * 1024 ** 2),
        /** How long a presigned upload URL is valid. */
        uploadUrlSeconds: z
          .number()
          .int()
          .min(60)
          .max(7 * 24 * 3600)
          .default(900),
        /**
         * How often the orphan sweep lists the bucket's `files/` for objects no record names (bytes
         * stored without one, tombstones of deleted files) and removes those older than any upload
         * URL. Each listing costs a LIST request per 1,000 objects and a read per 100 records.
         */
        orphanSweepHours: z.number().int().min(1).max(720).default(24),
        /**
         * Days a file is kept after its upload; past it the file is gone for every reader (a 404, an
         * attachment refused, null in `io.files`) and the sweep deletes it and gives its bytes back.
         * Absent: files are kept until their owner deletes them.
         */
        retentionDays: z.number().int().min(1).max(3650).optional(),
        /** Files larger than this are not read by `io.files.text()` (it answers null). */
        textMaxBytes: z
          .number()
          .int()
          .min(1)
          .max(1024 ** 3)
          .default(20 * 1024 ** 2),
        /** The most characters `io.files.text()` returns; longer text is cut there. */
        textMaxChars: z.number().int().min(1).max(100_000_000).default(1_000_000),
      })
      .strict()
      .prefault({}),
    connections: z
      .object({
        /** How long a connection record is kept: API Gateway closes every socket after 2 hours. */
        maxLifetimeMs: z.number().int().min(1_000).max(7_200_000).default(7_200_000),
      })
      .strict()
      .prefault({}),
    sweep: z
      .object({
        /**
         * How many shards each hour's bucket of the sweep's due index (`gsi1`) has, for runs,
         * connections and pending requests: one partition key takes at most 1,000 write units a
         * second, and every queued run writes its hour's bucket twice. The sweep queries every shard
         * (docs/performance.md, "Sweep index"). Raise it freely; lowering it while items are due
         * leaves those in the higher shards unswept until their hour leaves the sweep's look-back.
         */
        dueShards: z.number().int().min(1).max(128).default(16),
      })
      .strict()
      .prefault({}),
    /**
     * How long a session's items are kept (DynamoDB TTL, and the bucket's lifecycle rules for what a
     * message or an event moved there). Absent: kept until the session is deleted. Request ids,
     * connections and files have their own: `requests.retentionHours`, `connections.maxLifetimeMs`,
     * `files.retentionDays`.
     */
    retention: RetentionSettingsSchema.prefault({}),
    /** The runtime's own rate limits (API Gateway's stage throttling is per stage, not per user). */
    limits: LimitsSettingsSchema.prefault({}),
    /** Spending limits per owner and per tenant over a rolling day; off by default. */
    budgets: BudgetSettingsSchema.prefault({}),
    /** Domain events on the deployment's EventBridge bus (docs/operations.md, "Domain events"). */
    events: EventsSettingsSchema.prefault({}),
  })
  .strict();

/** The validated settings, defaults applied. */
export type Settings = z.infer<typeof SettingsSchema>;

/** The settings as a deployment gives them (the construct's `settings` prop): every field optional. */
export type SettingsInput = z.input<typeof SettingsSchema>;

/**
 * The file, at the root of each function's bundle, that holds the deployment's settings as JSON
 * (the construct writes it; `SWITCHBOARD_SETTINGS_FILE` names it). Lambda caps a function's
 * environment at 4 KB; a file in the bundle has no such bound, and it changes with the bundle's hash.
 */
export const SETTINGS_FILE = 'switchboard-settings.json';

/** Settings from a JSON string (or an object); throws a ValidationError naming the bad field. */
export function parseSettings(input: string | Record<string, unknown> | undefined): Settings {
  let value: unknown = input ?? {};
  if (typeof input === 'string') {
    try {
      value = input.trim() === '' ? {} : JSON.parse(input);
    } catch {
      throw new Error('SWITCHBOARD_SETTINGS is not valid JSON.');
    }
  }
  return parseOrThrow(SettingsSchema, value, 'settings');
}
