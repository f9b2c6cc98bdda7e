import type { RuntimeConfig } from '../../lib/boot/index.ts';
import type { FunctionName, Permissions } from '../../lib/config/index.ts';
import { FILE_BUCKET_CORS } from '../../lib/contract/index.ts';
import { type FaultOptions, FaultPlan } from './faults.ts';
import { startAwsFront } from './front.ts';
import { credentialsOf } from './identity.ts';
import type { ResourceNames } from './operations.ts';

/** Where the emulators are, and the names of the resources the grants cover. */
export interface FrontsOptions {
  dynamodb: string;
  aws: string;
  connections: string;
  /** The local EventBridge bus. */
  events: string;
  /** The local Secrets Manager. */
  secrets: string;
  names: ResourceNames;
  faults?: FaultOptions;
  permissions?: Permissions;
}

/** The fronts before every emulator, and the configuration that sends a function's calls through them. */
export interface Fronts {
  /** The faults drawn so far, when fault injection is on. */
  faults: FaultPlan | undefined;
  /** `base` with the function's credentials and the fronts' endpoints. */
  configFor<T extends RuntimeConfig>(fn: FunctionName, base: T): T;
  close(): Promise<void>;
}

/**
 * Starts a front (see {@link startAwsFront}) before DynamoDB, SQS and S3, the `@connections` API,
 * the EventBridge bus and Secrets Manager, sharing one fault plan, so that every call a function
 * makes is checked against its role.
 */
export async function startFronts(options: FrontsOptions): Promise<Fronts> {
  const faults = options.faults ? new FaultPlan(options.faults) : undefined;
  const common = { names: options.names, faults, permissions: options.permissions };
  const starting = await Promise.allSettled([
    startAwsFront({ ...common, target: 'dynamodb', url: options.dynamodb }),
    startAwsFront({ ...common, target: 'fauxqs', url: options.aws, bucketCors: FILE_BUCKET_CORS }),
    startAwsFront({ ...common, target: 'connections', url: options.connections }),
    startAwsFront({ ...common, target: 'events', url: options.events }),
    startAwsFront({ ...common, target: 'secrets', url: options.secrets }),
  ]);
  const started = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = starting.find((s) => s.status === 'rejected');
  if (failed) {
    // Leave no port open behind a sandbox that could not start.
    await Promise.all(started.map((front) => front.close()));
    throw failed.reason;
  }
  const [dynamodb, aws, connections, events, secrets] = started.map((front) => front.url) as [
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    faults,
    configFor: (fn, base) => ({
      ...base,
      fn,
      credentials: credentialsOf(fn),
      endpoints: { dynamodb, sqs: aws, s3: aws, events, secrets },
      wsEndpoint: connections,
    }),
    async close() {
      await Promise.all(started.map((front) => front.close()));
    },
  };
}
