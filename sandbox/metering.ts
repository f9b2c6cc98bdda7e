/**
 * A meter for the sandbox's AWS calls: an SDK middleware on every function's clients that counts
 * each call by function, service, operation and kind, and sums what AWS bills for it: DynamoDB read
 * and write request units, `@connections` post bytes (and 32 KB message units), SQS request units.
 *
 * Kinds are read from the command's input, never assumed from call counts, so the meter classifies
 * today's event path and any later one alike:
 * - `event-write`: a PutItem (or a BatchWriteItem put) of an item whose sk begins `EVT#`;
 * - `subscriber-read`: a Query of a session's partition (`SESSION#…`) for the `CONN#` prefix;
 * - `run-poll`: a GetItem of a run item (sk `RUN#…`), or the worker's BatchGetItem of its runs;
 * - `lease-renew`: an UpdateItem of a run item that sets `leaseExpiresAt` and not its status;
 * - `event-post`: a PostToConnection by the worker of an event frame (`seq`, or `type: "events"`);
 * - `replay-post`: the same sent by another function (the join's replay);
 * - `job-receive` / `idle-receive`: an SQS ReceiveMessage that got messages / none;
 * - `other`: everything else.
 *
 * Request units: the middleware sets `ReturnConsumedCapacity: 'TOTAL'` on DynamoDB item commands and
 * reads `ConsumedCapacity` from the answer. dynalite returns it, computed by DynamoDB's rules (writes
 * 1 WRU per KB of the larger of the old and new item, rounded up; reads 1 RRU per 4 KB, half for an
 * eventually consistent read; a Query sums the sizes of the items it reads), for the table only: a
 * write's global secondary index units are not included. When an answer carries none, the units are
 * computed from the item sizes in the input or output by the same rules (`estimated` counts those
 * calls). A conditional write that fails is billed 1 WRU, as DynamoDB does; other failed calls none.
 *
 * @example
 * const m = meter(sandbox.runtimes);
 * m.reset();
 * // … one phase …
 * const s = m.snapshot();
 * s.count((r) => r.kind === 'event-write'); // PutItems of event items in the phase
 */
import type { ClientService, Runtime } from '../lib/config/index.ts';

/** The services the functions call. */
export type MeteredService = 'DynamoDB' | 'SQS' | 'S3' | 'ApiGateway' | 'EventBridge';

/** What a call was for, read from its input (see the module's comment). */
export type CallKind =
  | 'event-write'
  | 'subscriber-read'
  | 'run-poll'
  | 'lease-renew'
  | 'event-post'
  | 'replay-post'
  | 'job-receive'
  | 'idle-receive'
  | 'other';

/** One call, as the meter saw it. */
export interface MeteredCall {
  /** The function whose client made it (`worker`, `http`, `ws`, `sweep`, …). */
  fn: string;
  service: MeteredService;
  /** The operation, without `Command`: `PutItem`, `Query`, `PostToConnection`, … */
  operation: string;
  kind: CallKind;
  /** `performance.now()` when the call returned. */
  at: number;
  ok: boolean;
  /** DynamoDB read and write request units. */
  rru: number;
  wru: number;
  /** Whether the units were computed from item sizes rather than read from `ConsumedCapacity`. */
  estimated: boolean;
  /** PostToConnection: the bytes posted. */
  bytes: number;
  /** What the request is billed as: SQS per 64 KB of payload, API Gateway messages per 32 KB; else 1. */
  requestUnits: number;
  /** ReceiveMessage: the messages received; Query: the items returned. */
  items: number;
}

/** The calls of one (function, service, operation, kind), summed. */
export interface MeterRow {
  fn: string;
  service: MeteredService;
  operation: string;
  kind: CallKind;
  calls: number;
  rru: number;
  wru: number;
  bytes: number;
  requestUnits: number;
  estimated: number;
}

/** What the meter counted since it started or was last reset. */
export interface MeterSnapshot {
  rows: MeterRow[];
  /** The number of calls of the rows that match (all of them without a filter). */
  count(filter?: (row: MeterRow) => boolean): number;
  /** A field of the rows that match, summed. */
  sum(
    field: 'rru' | 'wru' | 'bytes' | 'requestUnits' | 'estimated',
    filter?: (row: MeterRow) => boolean,
  ): number;
}

/** A running meter. */
export interface Meter {
  snapshot(): MeterSnapshot;
  /** Forgets what was counted; the middleware stays. */
  reset(): void;
  /** Called after every call, for a caller that wants timestamps (a job's receipt, say). */
  onCall?: (call: MeteredCall) => void;
  /** Takes the middleware off every client. */
  stop(): void;
}

/**
 * The part of an SDK middleware stack the meter uses. Each client types its stack by its own
 * commands; the meter treats them all alike through this shape (see {@link stackOf}).
 */
export interface Stack {
  add(
    middleware: (
      next: (args: { input: object }) => Promise<{ output: object }>,
      context: { commandName?: string },
    ) => (args: { input: object }) => Promise<{ output: object }>,
    options: { step: 'initialize'; name: string },
  ): void;
  remove(name: string): boolean;
}

/** The clients of one function, as a sandbox's `runtimes` holds them. */
export type MeteredRuntime = Pick<Runtime, 'onClient'>;

/** A client's middleware stack, seen through {@link Stack}: every SDK v3 stack has this shape. */
export function stackOf(client: { middlewareStack: object }): Stack {
  return client.middlewareStack as unknown as Stack;
}

const ITEM_COMMANDS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'Scan',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const KB = 1024;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** A string attribute, plain (document client) or marshalled (`{ S: … }`). */
function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (isObject(value) && typeof value.S === 'string') return value.S;
  return undefined;
}

function skOf(item: unknown): string {
  return (isObject(item) && stringOf(item.sk)) || '';
}

/** The kind of a DynamoDB call, from its input. */
function dynamoKind(operation: string, input: Json): CallKind {
  if (operation === 'PutItem') return skOf(input.Item).startsWith('EVT#') ? 'event-write' : 'other';
  if (operation === 'BatchWriteItem' && isObject(input.RequestItems)) {
    const requests = Object.values(input.RequestItems).flatMap((r) => (Array.isArray(r) ? r : []));
    const puts = requests.filter((r) => isObject(r) && isObject(r.PutRequest));
    return puts.some((r) => skOf((r.PutRequest as Json).Item).startsWith('EVT#')) ? 'event-write' : 'other';
  }
  if (operation === 'Query' && input.IndexName === undefined) {
    const values = Object.values(
      isObject(input.ExpressionAttributeValues) ? input.ExpressionAttributeValues : {},
    )
      .map(stringOf)
      .filter((v): v is string => v !== undefined);
    if (values.some((v) => v.startsWith('SESSION#')) && values.some((v) => v.startsWith('CONN#'))) {
      return 'subscriber-read';
    }
    return 'other';
  }
  const sk = skOf(input.Key);
  if (operation === 'GetItem' && sk.startsWith('RUN#')) return 'run-poll';
  if (operation === 'BatchGetItem') return 'run-poll';
  if (operation === 'UpdateItem' && sk.startsWith('RUN#')) {
    const update = typeof input.UpdateExpression === 'string' ? input.UpdateExpression : '';
    if (update.includes('leaseExpiresAt') && !/status/i.test(update)) return 'lease-renew';
  }
  return 'other';
}

/** Bytes of a UTF-8 string. */
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * An item's size by DynamoDB's rules (names plus values; numbers about one byte per two digits;
 * lists and maps 3 bytes plus one per element), for plain or marshalled items.
 */
export function itemBytes(item: unknown): number {
  if (!isObject(item)) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueBytes(value), 0);
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((s: number, v) => s + valueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((s: number, v) => s + 1 + valueBytes(v), 0);
  if (isObject(value)) {
    // A marshalled attribute value: { S: … }, { N: … }, { M: … }, { L: … }, …
    const [tag, inner] = Object.entries(value)[0] ?? [];
    if (
      Object.keys(value).length === 1 &&
      tag !== undefined &&
      /^(S|N|B|BOOL|NULL|M|L|SS|NS|BS)$/.test(tag)
    ) {
      if (tag === 'N') return Math.ceil(String(inner).length / 2) + 1;
      if (tag === 'M') return 3 + Object.keys(inner as Json).length + itemBytes(inner);
      if (tag === 'L') return 3 + (inner as unknown[]).reduce((s: number, v) => s + 1 + valueBytes(v), 0);
      return valueBytes(inner);
    }
    return 3 + Object.keys(value).length + itemBytes(value);
  }
  return 0;
}

/** Request units from the answer's ConsumedCapacity (one entry, or a list of them). */
function consumedUnits(output: Json): number | undefined {
  const consumed = output.ConsumedCapacity;
  const list = Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed];
  const units = list.map((c) => (isObject(c) && typeof c.CapacityUnits === 'number' ? c.CapacityUnits : NaN));
  if (units.length === 0 || units.some(Number.isNaN)) return undefined;
  return units.reduce((a, b) => a + b, 0);
}

/** Request units computed from item sizes, where the answer says nothing. */
function estimatedUnits(operation: string, input: Json, output: Json): number {
  if (operation === 'PutItem') return Math.max(1, Math.ceil(itemBytes(input.Item) / KB));
  if (operation === 'UpdateItem' || operation === 'DeleteItem') {
    return Math.max(1, Math.ceil(itemBytes(output.Attributes) / KB));
  }
  const consistent = input.ConsistentRead === true ? 1 : 0.5;
  if (operation === 'GetItem') return Math.max(1, Math.ceil(itemBytes(output.Item) / (4 * KB))) * consistent;
  if (operation === 'Query' || operation === 'Scan') {
    const items = Array.isArray(output.Items) ? output.Items : [];
    const bytes = items.reduce((s: number, item) => s + itemBytes(item), 0);
    return Math.max(1, Math.ceil(bytes / (4 * KB))) * consistent;
  }
  return 1;
}

function isConditionFailure(error: unknown): boolean {
  return isObject(error) && error.name === 'ConditionalCheckFailedException';
}

/** The bytes of a PostToConnection's Data. */
function dataBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return new Uint8Array();
}

/** Whether a posted frame carries events: one event (`seq`) or a batch (`type: "events"`). */
function isEventFrame(data: Uint8Array): boolean {
  try {
    const frame: unknown = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString());
    return isObject(frame) && (typeof frame.seq === 'number' || frame.type === 'events');
  } catch {
    return false;
  }
}

/** The SQS payload of a send (the body and its attributes), for its 64 KB request units. */
function sqsPayloadBytes(operation: string, input: Json): number {
  const body = (value: unknown) =>
    isObject(value) && typeof value.MessageBody === 'string' ? utf8(value.MessageBody) : 0;
  if (operation === 'SendMessage') return body(input);
  if (operation === 'SendMessageBatch' && Array.isArray(input.Entries)) {
    return input.Entries.reduce((s: number, e) => s + body(e), 0);
  }
  return 0;
}

let meters = 0;

/**
 * Meters every call of the given functions' clients (a sandbox's `runtimes`) until `stop()`.
 * Calls are counted once per SDK command (its retries are not separate calls).
 */
export function meter(runtimes: Record<string, MeteredRuntime>): Meter {
  meters += 1;
  const name = `switchboard-meter-${meters}`;
  const rows = new Map<string, MeterRow>();
  const attached: Stack[] = [];
  let stopped = false;

  const record = (call: MeteredCall) => {
    const key = `${call.fn}|${call.service}|${call.operation}|${call.kind}`;
    let row = rows.get(key);
    if (!row) {
      const { fn, service, operation, kind } = call;
      row = {
        fn,
        service,
        operation,
        kind,
        calls: 0,
        rru: 0,
        wru: 0,
        bytes: 0,
        requestUnits: 0,
        estimated: 0,
      };
      rows.set(key, row);
    }
    row.calls += 1;
    row.rru += call.rru;
    row.wru += call.wru;
    row.bytes += call.bytes;
    row.requestUnits += call.requestUnits;
    row.estimated += call.estimated ? 1 : 0;
    self.onCall?.(call);
  };

  const attach = (fn: string, service: MeteredService, stack: Stack) => {
    stack.add(
      (next, context) => async (args) => {
        const operation = (context.commandName ?? '?').replace(/Command$/, '');
        let input = args.input as Json;
        if (
          service === 'DynamoDB' &&
          ITEM_COMMANDS.has(operation) &&
          input.ReturnConsumedCapacity === undefined
        ) {
          input = { ...input, ReturnConsumedCapacity: 'TOTAL' };
        }
        const base = {
          fn,
          service,
          operation,
          rru: 0,
          wru: 0,
          estimated: false,
          bytes: 0,
          requestUnits: 1,
          items: 0,
        };
        let kind: CallKind = 'other';
        if (service === 'DynamoDB') kind = dynamoKind(operation, input);
        if (service === 'ApiGateway' && operation === 'PostToConnection') {
          const data = dataBytes(input.Data);
          base.bytes = data.byteLength;
          base.requestUnits = Math.max(1, Math.ceil(data.byteLength / (32 * KB)));
          if (isEventFrame(data)) kind = fn === 'worker' ? 'event-post' : 'replay-post';
        }
        if (service === 'SQS')
          base.requestUnits = Math.max(1, Math.ceil(sqsPayloadBytes(operation, input) / (64 * KB)));
        const isRead = READS.has(operation);
        try {
          const result = await next({ ...args, input });
          const output = result.output as Json;
          if (service === 'DynamoDB' && ITEM_COMMANDS.has(operation)) {
            const consumed = consumedUnits(output);
            const units = consumed ?? estimatedUnits(operation, input, output);
            base.estimated = consumed === undefined;
            if (isRead) base.rru = units;
            else base.wru = units;
            if (Array.isArray(output.Items)) base.items = output.Items.length;
          }
          if (service === 'SQS' && operation === 'ReceiveMessage') {
            base.items = Array.isArray(output.Messages) ? output.Messages.length : 0;
            kind = base.items > 0 ? 'job-receive' : 'idle-receive';
          }
          record({ ...base, kind, at: performance.now(), ok: true });
          return result;
        } catch (error) {
          if (service === 'DynamoDB' && !isRead && isConditionFailure(error)) base.wru = 1;
          record({ ...base, kind, at: performance.now(), ok: false });
          throw error;
        }
      },
      { step: 'initialize', name },
    );
    attached.push(stack);
  };

  const SERVICES: Record<ClientService, MeteredService> = {
    dynamodb: 'DynamoDB',
    sqs: 'SQS',
    s3: 'S3',
    connections: 'ApiGateway',
    events: 'EventBridge',
  };
  // Every client, including those a function creates on first use (S3, EventBridge).
  for (const [fn, runtime] of Object.entries(runtimes)) {
    runtime.onClient((service, client) => {
      if (!stopped) attach(fn, SERVICES[service], stackOf(client));
    });
  }

  const self: Meter = {
    snapshot() {
      const copy = [...rows.values()].map((row) => ({ ...row }));
      const pick = (filter?: (row: MeterRow) => boolean) => (filter ? copy.filter(filter) : copy);
      return {
        rows: copy,
        count: (filter) => pick(filter).reduce((s, r) => s + r.calls, 0),
        sum: (field, filter) => pick(filter).reduce((s, r) => s + r[field], 0),
      };
    },
    reset() {
      rows.clear();
    },
    stop() {
      stopped = true;
      for (const stack of attached) stack.remove(name);
      attached.length = 0;
    },
  };
  return self;
}
