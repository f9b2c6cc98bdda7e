import type { IncomingMessage } from 'node:http';
import type { ResourceKind } from '../../lib/config/index.ts';
import { SANDBOX_ACCOUNT } from './identity.ts';

/** The services the sandbox's AWS front checks. */
export type Service = 'dynamodb' | 'sqs' | 's3' | 'connections' | 'events' | 'secretsmanager';

/** One AWS call as IAM sees it: the action, and which of Switchboard's resources it names. */
export interface Operation {
  service: Service;
  /** The IAM action, e.g. `dynamodb:PutItem`. */
  action: string;
  /** The resource's kind; undefined for a resource that is not Switchboard's (no grant covers it). */
  kind: ResourceKind | undefined;
  /** The resource's ARN, for the error message. */
  arn: string;
  /**
   * The object keys an S3 object call acts on (one, or each of a multi-object delete's), which a grant
   * scoped to key prefixes must all cover.
   */
  keys?: string[];
}

/** The names of the sandbox's resources, the same ones the grants name. */
export interface ResourceNames {
  table: string;
  index: string;
  ownerIndex: string;
  queue: string;
  bucket: string;
  /** The EventBridge bus domain events go to. */
  eventBus: string;
  /** The name of the session-ref key's secret. */
  refKeySecret: string;
  /** The names of the model agents' key secrets, as the construct's `models.secrets` grants them. */
  modelSecrets?: readonly string[];
  region: string;
}

/** Batch calls are authorised as their single counterparts, as IAM does. */
const BATCH_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

function parseJson(body: Buffer): Record<string, unknown> {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A DynamoDB call (JSON protocol: the operation is in `x-amz-target`). */
export function dynamodbOperation(target: string, body: Buffer, names: ResourceNames): Operation {
  const name = target.split('.')[1] ?? '';
  const input = parseJson(body);
  const tables = input.RequestItems ? Object.keys(input.RequestItems as object) : [input.TableName];
  const index = input.IndexName;
  const own = tables.length > 0 && tables.every((table) => table === names.table);
  const kind = !own
    ? undefined
    : index === undefined
      ? 'table'
      : index === names.index
        ? 'sweepIndex'
        : index === names.ownerIndex
          ? 'ownerIndex'
          : undefined;
  const table = String(tables[0] ?? '');
  return {
    service: 'dynamodb',
    action: `dynamodb:${name}`,
    kind,
    arn: `arn:aws:dynamodb:${names.region}:${SANDBOX_ACCOUNT}:table/${table}${index ? `/index/${String(index)}` : ''}`,
  };
}

/** An SQS call: the JSON protocol's `x-amz-target`, or the query protocol's `Action`. */
export function sqsOperation(operation: string, body: Buffer, names: ResourceNames): Operation {
  const json = parseJson(body);
  const form = new URLSearchParams(body.toString('utf8'));
  const queueUrl = String(json.QueueUrl ?? form.get('QueueUrl') ?? '');
  const queue = String(json.QueueName ?? form.get('QueueName') ?? queueUrl.split('/').pop() ?? '');
  return {
    service: 'sqs',
    action: `sqs:${BATCH_ACTIONS[operation] ?? operation}`,
    kind: queue === names.queue ? 'queue' : undefined,
    arn: `arn:aws:sqs:${names.region}:${SANDBOX_ACCOUNT}:${queue}`,
  };
}

/** An S3 call (REST, path-style: `/bucket/key`). */
export function s3Operation(
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
  names: ResourceNames,
  body: Buffer = Buffer.alloc(0),
) {
  const [, bucket = '', ...rest] = path.split('/');
  const key = rest.join('/');
  const method = req.method ?? 'GET';
  let action: string;
  if (method === 'POST' && query.has('delete')) action = 'DeleteObject';
  else if (!key) action = method === 'GET' || method === 'HEAD' ? 'ListBucket' : `${method}Bucket`;
  else
    action =
      { GET: 'GetObject', HEAD: 'GetObject', PUT: 'PutObject', DELETE: 'DeleteObject' }[method] ?? method;
  const objects = action.endsWith('Object');
  // A multi-object delete names its keys in its XML body; IAM authorises each as a DeleteObject.
  const keys =
    action === 'DeleteObject' && !key
      ? [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => xmlText(m[1] as string))
      : objects
        ? [safeDecode(key)]
        : undefined;
  return {
    service: 's3',
    action: `s3:${action}`,
    kind:
      bucket !== names.bucket
        ? undefined
        : objects
          ? 'objects'
          : action === 'ListBucket'
            ? 'bucket'
            : undefined,
    arn: `arn:aws:s3:::${bucket}${objects ? `/${key || '*'}` : ''}`,
    ...(keys && { keys }),
  } satisfies Operation;
}

/** A path's key as S3 reads it; a malformed escape is left as it is. */
function safeDecode(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** The text of an XML element's content (S3 escapes `&`, `<`, `>`, quotes in keys). */
function xmlText(value: string): string {
  return value.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name] as string,
  );
}

/** A call to the WebSocket API's `@connections` endpoint. */
export function connectionsOperation(method: string, path: string, names: ResourceNames): Operation {
  return {
    service: 'connections',
    action: 'execute-api:ManageConnections',
    kind: path.includes('/@connections/') ? 'connections' : undefined,
    arn: `arn:aws:execute-api:${names.region}:${SANDBOX_ACCOUNT}:sandbox/live/${method}${path.replace(/^\/live/, '')}`,
  };
}

/** An EventBridge call (JSON 1.1: the operation is in `x-amz-target`); PutEvents names the bus of its entries. */
export function eventsOperation(target: string, body: Buffer, names: ResourceNames): Operation {
  const name = target.split('.')[1] ?? '';
  const entries = parseJson(body).Entries;
  const buses = new Set(
    (Array.isArray(entries) ? entries : []).map((entry) => {
      const bus = String((entry as { EventBusName?: unknown }).EventBusName ?? 'default');
      return bus.startsWith('arn:') ? bus.slice(bus.lastIndexOf('/') + 1) : bus;
    }),
  );
  const bus = [...buses][0] ?? names.eventBus;
  return {
    service: 'events',
    action: `events:${name}`,
    kind: buses.size <= 1 && bus === names.eventBus ? 'eventBus' : undefined,
    arn: `arn:aws:events:${names.region}:${SANDBOX_ACCOUNT}:event-bus/${bus}`,
  };
}

/**
 * What ends a sandbox secret's ARN. AWS adds six random characters; the sandbox's are fixed, so the
 * ARN stays the same across restarts.
 */
const SECRET_SUFFIX = '-Sndbox';

/** The ARN of a sandbox secret. */
export function secretArn(name: string, region: string): string {
  return `arn:aws:secretsmanager:${region}:${SANDBOX_ACCOUNT}:secret:${name}${SECRET_SUFFIX}`;
}

/**
 * Whether `id` names the secret as Secrets Manager resolves a `SecretId`: by its name, its ARN, or
 * its ARN without the six characters.
 */
export function namesSecret(id: string, secret: { name: string; arn: string }): boolean {
  return id === secret.name || id === secret.arn || id === secret.arn.slice(0, -SECRET_SUFFIX.length);
}

/**
 * A Secrets Manager call (JSON 1.1: the operation is in `x-amz-target`). IAM judges a `SecretId`
 * given by name or partial ARN on the secret's full ARN, and so does this.
 */
export function secretsOperation(target: string, body: Buffer, names: ResourceNames): Operation {
  const id = String(parseJson(body).SecretId ?? '');
  const secretOf = (name: string) => ({ name, arn: secretArn(name, names.region) });
  const refKey = secretOf(names.refKeySecret);
  const model = (names.modelSecrets ?? []).map(secretOf).find((secret) => namesSecret(id, secret));
  const own = namesSecret(id, refKey) ? refKey : model;
  return {
    service: 'secretsmanager',
    action: `secretsmanager:${target.split('.')[1] ?? ''}`,
    kind: own === refKey ? 'refKeySecret' : own ? 'modelSecrets' : undefined,
    arn: own
      ? own.arn
      : id.startsWith('arn:')
        ? id
        : `arn:aws:secretsmanager:${names.region}:${SANDBOX_ACCOUNT}:secret:${id}`,
  };
}
