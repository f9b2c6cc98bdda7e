import * as z from 'zod';
import type { Runtime } from '../config/index.ts';
import type { DeployedSettings } from './settings.ts';

/** Where an operator command acts: the table, the queues and the bucket of one deployment (or the sandbox). */
export interface OperatorTarget {
  /** The clients and names the commands use, as the functions' own runtime. */
  rt: Runtime;
  /** The turns queue's dead-letter queue. */
  dlqUrl: string;
  /** What the target is, for messages: `sandbox at http://…`, `stack Assistant`. */
  label: string;
  /** The settings its functions run with; absent for resources named one by one (`--table`). */
  settings?: () => Promise<DeployedSettings>;
}

/**
 * What the sandbox tells the operator commands about itself (`GET /sandbox/operate`): its names,
 * endpoints and the credentials its emulators take. Nothing of it is secret: the sandbox is local.
 */
export const SandboxResourcesSchema = z.object({
  table: z.string().min(1),
  queueUrl: z.string().min(1),
  dlqUrl: z.string().min(1),
  bucket: z.string().min(1),
  region: z.string().min(1),
  endpoints: z.object({
    dynamodb: z.string().url(),
    sqs: z.string().url(),
    s3: z.string().url(),
    /** The sandbox's EventBridge bus, where `tenant suspend` and `erase` publish their audit event. */
    events: z.string().url().optional(),
  }),
  credentials: z.object({ accessKeyId: z.string(), secretAccessKey: z.string() }),
  /** The sandbox's session-ref key, so `--user` names a session by its owner's ref. */
  refKey: z.string().min(32),
  /** The sandbox's EventBridge bus, by name. */
  eventBus: z.string().min(1).optional(),
  /** The settings the sandbox was given (`switchboard dev --settings`), as given. */
  settings: z.record(z.string(), z.unknown()).optional(),
});
export type SandboxResources = z.infer<typeof SandboxResourcesSchema>;

/** The resources of a deployed stack, from its outputs or named one by one. */
export const StackResourcesSchema = z.object({
  table: z.string().min(1),
  queueUrl: z.string().url(),
  dlqUrl: z.string().url(),
  bucket: z.string().default(''),
  region: z.string().min(1).optional(),
  /**
   * The Secrets Manager secret of the session-ref key (the construct's `RefKeySecretArn` output): read
   * (`secretsmanager:GetSecretValue`) only by a command given `--user`, to find that owner's ref.
   */
  refKeySecret: z.string().min(1).optional(),
  /** The deployment's EventBridge bus (the construct's `EventBusName` output), for the audit event. */
  eventBus: z.string().min(1).optional(),
});
export type StackResources = z.infer<typeof StackResourcesSchema>;

/** A turn job as the dead-letter queue holds it, with what its run and session are now. */
export interface DeadLetter {
  messageId: string;
  /** How often the turns queue delivered it before it gave up. */
  receiveCount?: number;
  sentAt?: string;
  deduplicationId?: string;
  /** The job (ids and kind), or undefined when the body is not one. */
  job?: { kind: string; sessionId: string; runId: string; requestId: string };
  /** Why the body is not a job. */
  unreadable?: string;
  /** The job's run as the table has it now; absent when it is gone (its session was deleted). */
  run?: { status: string; kind?: string; agentId: string; createdAt: string; stopReason?: string };
}

/** What a redrive did with one dead letter. */
/** A dead letter `dlq delete` or `dlq purge` removed: its id, and its job when it held one. */
export interface DeletedDeadLetter {
  messageId: string;
  sessionId?: string;
  runId?: string;
  /** Why it held no job (a poison message: not JSON, or not a turn job). */
  unreadable?: string;
}

export interface Redriven {
  messageId: string;
  /** `redriven`: sent to the turns queue again; `acknowledged`: its run is closed or gone, deleted without running; `skipped`: not a job. */
  outcome: 'redriven' | 'acknowledged' | 'skipped';
  detail: string;
  sessionId?: string;
  runId?: string;
  /** The new deduplication id a redriven job was sent with. */
  deduplicationId?: string;
}
