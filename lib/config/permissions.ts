/**
 * What each function may do, declared once. The CDK stack turns these into each function role's
 * policy (infra/switchboard.ts) and the sandbox enforces the same list on every AWS call a function
 * makes (sandbox/aws/), so a call that a role would not allow fails locally with AccessDenied exactly
 * as it would on AWS. test/infra/iam.test.ts checks the list against the SDK commands each function's
 * bundle really calls: nothing missing, nothing unused.
 */

/**
 * The Lambda functions, by entry point under `functions/`. `authorizer` (the WebSocket API's
 * `$connect` authoriser) exists only in a stack with built-in `auth`; `agui` (the AG-UI endpoint's
 * function URL) in a stack with built-in `auth` or `allowAnonymous`.
 */
export const FUNCTION_NAMES = ['http', 'ws', 'worker', 'sweep', 'authorizer', 'agui'] as const;
/** One of {@link FUNCTION_NAMES}. */
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/**
 * The resources a grant can name: the table, its sweep and owner indexes, the turns queue, the objects of the
 * file bucket, the bucket itself (listing), the WebSocket API's `@connections` endpoint, the
 * EventBridge bus of the domain events, the Secrets Manager secret of the session-ref key, and what the
 * construct's `models` prop names: the secrets of model agents' endpoint keys (`models.secrets`) and
 * the Bedrock models the agents call (`models.bedrock`). A stack without that prop has none of the
 * last two, and grants nothing on them.
 */
export type ResourceKind =
  | 'table'
  | 'sweepIndex'
  | 'ownerIndex'
  | 'queue'
  | 'objects'
  | 'bucket'
  | 'connections'
  | 'eventBus'
  | 'refKeySecret'
  | 'modelSecrets'
  | 'bedrockModels';

/** Some IAM actions on one kind of resource. */
export interface Grant {
  readonly resource: ResourceKind;
  readonly actions: readonly string[];
  /**
   * For `objects`: the key prefixes the actions are allowed under ({@link OBJECT_PREFIXES}); the role's
   * statement names `<bucket>/<prefix>*` for each, and the sandbox refuses a key outside them.
   */
  readonly prefixes?: readonly ObjectPrefix[];
}

/**
 * Where the runtime keeps objects in the file bucket, by what they hold: uploaded files
 * (`files/<fileId>`), a message's heavy fields and its attachments, event data and a request's or an
 * answer's JSON too large for an item, a turn's screenshots (each `<prefix><sessionId>/…`), and copies
 * too large for a response: exports, messages and events (`exports/<digest>/…`).
 */
export const OBJECT_PREFIXES = [
  'files/',
  'messages/',
  'attachments/',
  'events/',
  'actions/',
  'screenshots/',
  'exports/',
] as const;
/** One of {@link OBJECT_PREFIXES}. */
export type ObjectPrefix = (typeof OBJECT_PREFIXES)[number];

/** What a session's messages, events and turns keep in the bucket. */
const SESSION_OBJECTS: readonly ObjectPrefix[] = [
  'messages/',
  'attachments/',
  'events/',
  'actions/',
  'screenshots/',
];

const TABLE_ITEMS = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:Query',
] as const;

/**
 * The item actions and more. Marked pure (a spread is not, to a bundler), so that a function that
 * never reads the grants (every function: only the stack and the sandbox do) drops the whole list.
 */
const tableItemsAnd = /* @__NO_SIDE_EFFECTS__ */ (...more: string[]): readonly string[] => [
  ...TABLE_ITEMS,
  ...more,
];

const CONNECTIONS: Grant = { resource: 'connections', actions: ['execute-api:ManageConnections'] };

const EVENTS: Grant = { resource: 'eventBus', actions: ['events:PutEvents'] };

const REF_KEY: Grant = { resource: 'refKeySecret', actions: ['secretsmanager:GetSecretValue'] };

/**
 * Streaming only: the loop of an AI SDK agent calls Bedrock's ConverseStream (`streamText`), which IAM
 * authorises as `InvokeModelWithResponseStream`. `InvokeModel` (Converse, `generateText`) is not
 * called by anything Switchboard runs.
 */
const BEDROCK: Grant = { resource: 'bedrockModels', actions: ['bedrock:InvokeModelWithResponseStream'] };

/**
 * Each function's grants. Why each is there:
 * - every function reads and writes session items and queries a session's partition;
 * - the HTTP and WebSocket functions enqueue turns; the sweep enqueues the resumption of a lapsed
 *   approval and requeues a lost run;
 * - objects, each under the key prefixes its code uses: a session's large attachments, screenshots,
 *   message fields, event bodies and large requests and answers (`messages/`, `attachments/`,
 *   `events/`, `actions/`, `screenshots/`) are read
 *   and written by whichever function handles them (the WebSocket and AG-UI functions take the same
 *   messages as the HTTP one); only the HTTP function stores uploads (`files/`) and exports
 *   and the copies of what is too large for a response (`exports/`, read back through a presigned
 *   link it signs); the worker reads files for the agent; the sweep reads only the large requests it
 *   lapses (`actions/`) and writes only tombstones under `files/` (below): it enqueues the
 *   resumption of a lapse, which the worker runs;
 * - the HTTP function deletes a file its owner deletes, the sweep one that expired: each deletes its
 *   object, or writes a zero-byte tombstone over it while the file's upload URL may still work
 *   (`s3:PutObject`), which stops that URL;
 * - the sweep's orphan pass lists `files/` (`s3:ListBucket`), looks up which keys name a file record
 *   (`dynamodb:BatchGetItem`, 100 at a time) and deletes the objects none names;
 * - the worker deletes a session's objects (its session prefixes and `exports/`) when the session is
 *   deleted, and a turn's screenshots when the turn is done, listing them first
 *   (`s3:ListBucket` also makes a missing object a 404 rather than a 403 for it) and batch-deletes its
 *   items, and reads whether the runs it holds were cancelled in one BatchGetItem; it consumes the queue as its event source (the stack's `SqsEventSource` grants those actions,
 *   `GetQueueUrl` among them), and hands records back early by shortening their visibility;
 * - only the sweep queries the due-item index; only the HTTP function lists an owner's sessions (the
 *   owner index);
 * - all but the HTTP function post to WebSocket connections;
 * - the `$connect` authoriser calls no AWS service (it reads the issuer's keys over HTTPS): nothing;
 * - the AG-UI function takes messages and answers as the HTTP function does (items, the queue, the
 *   objects of large attachments and event bodies) and reads the log; it posts to no connection;
 * - domain events (lib/events) are published where their facts are written: the worker (a pause
 *   opened or withdrawn, a turn failed, a budget reached), the sweep (a pause expiring or lapsed), and
 *   the HTTP, WebSocket and AG-UI functions, which take answers (a pause answered);
 * - the session-ref key is read by the functions that identify callers (HTTP, WebSocket, AG-UI): a
 *   caller's session scope is keyed with it (lib/auth/identify.ts). The worker and the sweep only
 *   meet refs already made, and the `$connect` authoriser names no session: none of them may read it;
 * - agents run only in the worker: it alone reads model agents' endpoint keys (`apiKeyFromSecret`,
 *   through `Runtime.secret`) and calls Bedrock models, on what the construct's `models` prop names.
 */
export const FUNCTION_PERMISSIONS: Permissions = {
  http: [
    { resource: 'table', actions: TABLE_ITEMS },
    { resource: 'ownerIndex', actions: ['dynamodb:Query'] },
    { resource: 'queue', actions: ['sqs:SendMessage'] },
    {
      resource: 'objects',
      actions: ['s3:GetObject', 's3:PutObject'],
      // Written out, not spread: a bundler keeps a spread (see tableItemsAnd).
      prefixes: ['messages/', 'attachments/', 'events/', 'actions/', 'screenshots/', 'files/', 'exports/'],
    },
    { resource: 'objects', actions: ['s3:DeleteObject'], prefixes: ['files/'] },
    EVENTS,
    REF_KEY,
  ],
  ws: [
    { resource: 'table', actions: TABLE_ITEMS },
    { resource: 'queue', actions: ['sqs:SendMessage'] },
    { resource: 'objects', actions: ['s3:GetObject', 's3:PutObject'], prefixes: SESSION_OBJECTS },
    CONNECTIONS,
    EVENTS,
    REF_KEY,
  ],
  worker: [
    { resource: 'table', actions: tableItemsAnd('dynamodb:BatchWriteItem', 'dynamodb:BatchGetItem') },
    {
      resource: 'queue',
      actions: [
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:ChangeMessageVisibility',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
      ],
    },
    {
      resource: 'objects',
      actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
      prefixes: SESSION_OBJECTS,
    },
    { resource: 'objects', actions: ['s3:GetObject'], prefixes: ['files/'] },
    { resource: 'objects', actions: ['s3:DeleteObject'], prefixes: ['exports/'] },
    { resource: 'bucket', actions: ['s3:ListBucket'] },
    CONNECTIONS,
    EVENTS,
    { resource: 'modelSecrets', actions: ['secretsmanager:GetSecretValue'] },
    BEDROCK,
  ],
  sweep: [
    { resource: 'table', actions: tableItemsAnd('dynamodb:BatchGetItem') },
    { resource: 'sweepIndex', actions: ['dynamodb:Query'] },
    { resource: 'queue', actions: ['sqs:SendMessage'] },
    { resource: 'objects', actions: ['s3:PutObject', 's3:DeleteObject'], prefixes: ['files/'] },
    { resource: 'objects', actions: ['s3:GetObject'], prefixes: ['actions/'] },
    { resource: 'bucket', actions: ['s3:ListBucket'] },
    CONNECTIONS,
    EVENTS,
  ],
  authorizer: [],
  agui: [
    // The AG-UI endpoint starts and reads turns: it never deletes an item.
    {
      resource: 'table',
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'],
    },
    { resource: 'queue', actions: ['sqs:SendMessage'] },
    { resource: 'objects', actions: ['s3:GetObject', 's3:PutObject'], prefixes: SESSION_OBJECTS },
    EVENTS,
    REF_KEY,
  ],
};

/**
 * What the construct's public `grant*` methods give a principal that is not one of its functions (an
 * operator's role, a host's backend), from the same resource kinds as {@link FUNCTION_PERMISSIONS}.
 * - readSessions: what `switchboard inspect` and `tail` read (docs/operations.md): items and a
 *   session's partition, and an owner's sessions on the owner index. Nothing that writes.
 */
export const GRANTEE_PERMISSIONS = {
  readSessions: [
    { resource: 'table', actions: ['dynamodb:GetItem', 'dynamodb:Query'] },
    { resource: 'ownerIndex', actions: ['dynamodb:Query'] },
  ],
} as const satisfies Readonly<Record<string, readonly Grant[]>>;

/** Grants by function: {@link FUNCTION_PERMISSIONS}, or a variant of it in a test. */
export type Permissions = Readonly<Record<FunctionName, readonly Grant[]>>;

/**
 * Whether `fn`'s grants allow `action` on a resource of `kind`; for an object, on the one under `key`
 * when it is given (a grant with `prefixes` covers only keys under one of them).
 */
export function allows(
  fn: FunctionName,
  action: string,
  kind: ResourceKind,
  permissions: Permissions = FUNCTION_PERMISSIONS,
  key?: string,
): boolean {
  return permissions[fn].some(
    (grant) =>
      grant.resource === kind &&
      grant.actions.includes(action) &&
      (key === undefined || !grant.prefixes || grant.prefixes.some((prefix) => key.startsWith(prefix))),
  );
}
