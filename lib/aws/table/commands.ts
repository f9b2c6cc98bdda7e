import type {
  BatchGetCommandInput,
  BatchGetCommandOutput,
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * The table calls Switchboard makes, one class per DynamoDB operation and named for it (`GetItem`,
 * `PutItem`, `Query`…), sent by {@link TableClient}. They take plain values and answer plain items,
 * as the document client does (their input and output types are `@aws-sdk/lib-dynamodb`'s, reused
 * rather than written again); each knows which of its fields hold attribute values, and converts
 * them to and from DynamoDB JSON with `@aws-sdk/util-dynamodb` (undefined values removed).
 */
export type Plain = Record<string, unknown>;
type Wire = Record<string, unknown>;

/** The DynamoDB operations of {@link TableCommand}s. */
export type Operation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem';

const toWire = (value: unknown): Wire | undefined =>
  value === undefined
    ? undefined
    : marshall(value as Plain, { removeUndefinedValues: true, convertClassInstanceToMap: false });
/** Base64 as bytes: a Uint8Array, as the SDK answers a binary value (not a Buffer). */
function bytesOf(base64: unknown): Uint8Array {
  const buffer = Buffer.from(String(base64), 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

function withBytes(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const attribute = value as Record<string, unknown>;
  if (typeof attribute.B === 'string') return { B: bytesOf(attribute.B) };
  if (Array.isArray(attribute.BS)) return { BS: attribute.BS.map(bytesOf) };
  if (Array.isArray(attribute.L)) return { L: attribute.L.map(withBytes) };
  if (typeof attribute.M === 'object' && attribute.M !== null) return { M: itemWithBytes(attribute.M) };
  return value;
}
const itemWithBytes = (item: object) =>
  Object.fromEntries(Object.entries(item).map(([name, value]) => [name, withBytes(value)]));

const fromWire = (value: unknown): Plain | undefined =>
  value === undefined ? undefined : unmarshall(itemWithBytes(value as object) as never);
const mapValues = <T, U>(record: Record<string, T> | undefined, fn: (value: T) => U) =>
  record && Object.fromEntries(Object.entries(record).map(([key, value]) => [key, fn(value)]));

/** The fields every single-item and query input may hold attribute values in. */
const ITEM_FIELDS = ['Key', 'Item', 'ExpressionAttributeValues', 'ExclusiveStartKey'] as const;
/** The fields every single-item and query output may hold items in. */
const OUTPUT_ITEM_FIELDS = ['Item', 'Attributes', 'LastEvaluatedKey'] as const;

function inputToWire(input: Plain): Wire {
  const wire: Wire = { ...input };
  for (const field of ITEM_FIELDS) if (field in wire) wire[field] = toWire(wire[field]);
  return wire;
}

function outputFromWire(output: Wire): Plain {
  const plain: Plain = { ...output };
  for (const field of OUTPUT_ITEM_FIELDS) if (field in plain) plain[field] = fromWire(plain[field]);
  if (Array.isArray(plain.Items)) plain.Items = plain.Items.map((item) => fromWire(item));
  return plain;
}

type KeysAndAttributes = { Keys?: Plain[] } & Plain;
type WriteRequest = { PutRequest?: { Item: Plain }; DeleteRequest?: { Key: Plain } };

const keysToWire = (entry: KeysAndAttributes) => ({ ...entry, Keys: entry.Keys?.map(toWire) });
const keysFromWire = (entry: KeysAndAttributes) => ({ ...entry, Keys: entry.Keys?.map(fromWire) });
const writesConvert =
  (convert: (value: unknown) => Plain | undefined) =>
  (requests: WriteRequest[]): WriteRequest[] =>
    requests.map(({ PutRequest, DeleteRequest, ...rest }) => ({
      ...rest,
      ...(PutRequest && { PutRequest: { ...PutRequest, Item: convert(PutRequest.Item) as Plain } }),
      ...(DeleteRequest && { DeleteRequest: { ...DeleteRequest, Key: convert(DeleteRequest.Key) as Plain } }),
    }));

/** One call: its operation, its plain input, and how it goes to and comes from the wire. */
export abstract class TableCommand<Input extends object, Output extends object> {
  abstract readonly operation: Operation;
  /** Phantom: the output type {@link TableClient.send} answers. */
  declare readonly output: Output;
  constructor(readonly input: Input) {}
  /** The request body, in DynamoDB JSON. */
  toWire(input: Input): Wire {
    return inputToWire(input as Plain);
  }
  /** The answer, from DynamoDB JSON. */
  fromWire(output: Wire): Output {
    return outputFromWire(output) as Output;
  }
}

/** A command whose fields are those every single-item and query call shares (see {@link TableCommand}). */
function commandOf<Input extends object, Output extends object>(operation: Operation) {
  const command = class extends TableCommand<Input, Output> {
    readonly operation = operation;
  };
  // Named for its operation, for stack traces and logs.
  return Object.defineProperty(command, 'name', { value: operation });
}

/** Reads one item by its key. */
export const GetItem = commandOf<GetCommandInput, GetCommandOutput>('GetItem');
/** Writes one item whole, under a condition if one is given. */
export const PutItem = commandOf<PutCommandInput, PutCommandOutput>('PutItem');
/** Changes some attributes of one item, under a condition if one is given. */
export const UpdateItem = commandOf<UpdateCommandInput, UpdateCommandOutput>('UpdateItem');
/** Deletes one item by its key, under a condition if one is given. */
export const DeleteItem = commandOf<DeleteCommandInput, DeleteCommandOutput>('DeleteItem');
/** Reads one partition's items (of the table or an index), in key order, a page at a time. */
export const Query = commandOf<QueryCommandInput, QueryCommandOutput>('Query');
/** Reads every item of the table or an index, a page at a time (operator tools only, never a request path). */
export const Scan = commandOf<ScanCommandInput, ScanCommandOutput>('Scan');

/** Reads up to 100 items by their keys, handing back the keys it did not read. */
export class BatchGetItem extends TableCommand<BatchGetCommandInput, BatchGetCommandOutput> {
  readonly operation = 'BatchGetItem';
  override toWire(input: BatchGetCommandInput): Wire {
    return {
      ...input,
      RequestItems: mapValues(input.RequestItems as Record<string, KeysAndAttributes>, keysToWire),
    };
  }
  override fromWire(output: Wire): BatchGetCommandOutput {
    const responses = output.Responses as Record<string, unknown[]> | undefined;
    const unprocessed = output.UnprocessedKeys as Record<string, KeysAndAttributes> | undefined;
    return {
      ...output,
      Responses: mapValues(responses, (items) => items.map((item) => fromWire(item))),
      UnprocessedKeys: mapValues(unprocessed, keysFromWire),
    } as BatchGetCommandOutput;
  }
}

/** Puts or deletes up to 25 items, handing back the writes it did not make. */
export class BatchWriteItem extends TableCommand<BatchWriteCommandInput, BatchWriteCommandOutput> {
  readonly operation = 'BatchWriteItem';
  override toWire(input: BatchWriteCommandInput): Wire {
    return {
      ...input,
      RequestItems: mapValues(input.RequestItems as Record<string, WriteRequest[]>, writesConvert(toWire)),
    };
  }
  override fromWire(output: Wire): BatchWriteCommandOutput {
    const unprocessed = output.UnprocessedItems as Record<string, WriteRequest[]> | undefined;
    return {
      ...output,
      UnprocessedItems: mapValues(unprocessed, writesConvert(fromWire)),
    } as BatchWriteCommandOutput;
  }
}

/** Any of the commands above. */
// biome-ignore lint/suspicious/noExplicitAny: the union of every command's input and output
export type AnyTableCommand = TableCommand<any, any>;
