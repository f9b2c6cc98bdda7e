import type { IncomingMessage, ServerResponse } from 'node:http';
import { SANDBOX_OPERATE_PATH, type SandboxResources } from '../lib/operate/index.ts';
import type { FaultPlan } from './aws/index.ts';
import type { LocalServices } from './services.ts';
import { SANDBOX_CREDENTIALS, SANDBOX_NAMES, SANDBOX_REGION } from './services.ts';

/**
 * What the operator commands (`switchboard inspect --sandbox URL`, …) need to reach this sandbox's
 * emulators (`eventsUrl` is its EventBridge bus's), and the settings it was given.
 */
export function sandboxResources(
  services: LocalServices,
  refKey: string,
  eventsUrl: string,
  settings: Record<string, unknown> = {},
): SandboxResources {
  return {
    table: SANDBOX_NAMES.table,
    queueUrl: services.queueUrl,
    dlqUrl: services.dlqUrl,
    bucket: SANDBOX_NAMES.bucket,
    region: SANDBOX_REGION,
    endpoints: {
      dynamodb: services.dynamodbEndpoint,
      sqs: services.awsEndpoint,
      s3: services.awsEndpoint,
      events: eventsUrl,
    },
    credentials: SANDBOX_CREDENTIALS,
    refKey,
    eventBus: SANDBOX_NAMES.eventBus,
    settings,
  };
}

/**
 * Serves {@link sandboxResources} at `GET /sandbox/operate`: the sandbox is local and its emulators
 * take any credentials, so nothing here is secret (its session-ref key is a development key, as its
 * token-signing key is); a deployed stack has no such route (the commands
 * find it by its outputs). Same-origin only: a page of another origin cannot read it. Returns true
 * when it answered.
 */
export function serveOperate(
  req: IncomingMessage,
  res: ServerResponse,
  resources: SandboxResources,
): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== SANDBOX_OPERATE_PATH || req.method !== 'GET') return false;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(resources));
  return true;
}

/** Where the sandbox reports the faults it injected (`switchboard dev --faults`). */
export const FAULTS_PATH = '/sandbox/faults';

/**
 * Serves the fault report at `GET /sandbox/faults`: what was injected so far, by service, operation
 * and kind (`{"enabled": false}` without fault injection). Returns true when it answered.
 */
export function serveFaults(
  req: IncomingMessage,
  res: ServerResponse,
  faults: FaultPlan | undefined,
): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== FAULTS_PATH || req.method !== 'GET') return false;
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(faults ? faults.report() : { enabled: false }));
  return true;
}
