import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LocalServices,
  SANDBOX_CREDENTIALS,
  SANDBOX_NAMES,
  SANDBOX_REGION,
  startLocalServices,
} from '../../sandbox/services.ts';

let services: LocalServices;
let db: DynamoDBClient;
beforeAll(async () => {
  services = await startLocalServices({});
  db = new DynamoDBClient({
    endpoint: services.dynamodbEndpoint,
    region: SANDBOX_REGION,
    credentials: SANDBOX_CREDENTIALS,
  });
});
afterAll(async () => {
  db?.destroy();
  await services?.stop();
});

const TableName = SANDBOX_NAMES.table;
const key = (sk: string) => ({ pk: { S: 'FIDELITY#1' }, sk: { S: sk } });
const stored = (sk: string) => ({ ...key(sk), status: { S: 'running' }, n: { N: '3' } });
const refusal = { ConditionExpression: '#s = :q', ExpressionAttributeNames: { '#s': 'status' } };
const queued = { ':q': { S: 'queued' } };

/** The error a call fails with (it must fail). */
async function failure(call: Promise<unknown>): Promise<Error & { Item?: unknown }> {
  const error = await call.then(
    () => expect.unreachable('the call was applied'),
    (e: unknown) => e as Error & { Item?: unknown },
  );
  return error;
}

describe("the sandbox's DynamoDB answers a refused conditional write as DynamoDB does", () => {
  it('with the item as it was, when asked for ALL_OLD, on UpdateItem, PutItem and DeleteItem', async () => {
    await db.send(new PutItemCommand({ TableName, Item: stored('a') }));
    const update = await failure(
      db.send(
        new UpdateItemCommand({
          TableName,
          Key: key('a'),
          UpdateExpression: 'SET n = :n',
          ...refusal,
          ExpressionAttributeValues: { ...queued, ':n': { N: '4' } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(update).toBeInstanceOf(ConditionalCheckFailedException);
    expect(update.Item).toEqual(stored('a'));
    const put = await failure(
      db.send(
        new PutItemCommand({
          TableName,
          Item: { ...key('a'), status: { S: 'other' } },
          ...refusal,
          ExpressionAttributeValues: queued,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(put.Item).toEqual(stored('a'));
    const remove = await failure(
      db.send(
        new DeleteItemCommand({
          TableName,
          Key: key('a'),
          ...refusal,
          ExpressionAttributeValues: queued,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    expect(remove.Item).toEqual(stored('a'));
  });

  it('without the item when not asked, or when there is no item', async () => {
    await db.send(new PutItemCommand({ TableName, Item: stored('b') }));
    const update = (ask?: 'NONE' | 'ALL_OLD', sk = 'b') =>
      failure(
        db.send(
          new UpdateItemCommand({
            TableName,
            Key: key(sk),
            UpdateExpression: 'SET n = :n',
            ...refusal,
            ExpressionAttributeValues: { ...queued, ':n': { N: '4' } },
            ...(ask && { ReturnValuesOnConditionCheckFailure: ask }),
          }),
        ),
      );
    for (const error of [await update(), await update('NONE'), await update('ALL_OLD', 'missing')]) {
      expect(error).toBeInstanceOf(ConditionalCheckFailedException);
      expect(error.Item).toBeUndefined();
    }
  });

  it('applies a write whose condition holds as before, and refuses a value DynamoDB does not know', async () => {
    const { Attributes } = await db.send(
      new UpdateItemCommand({
        TableName,
        Key: key('c'),
        UpdateExpression: 'SET n = :n',
        ConditionExpression: 'attribute_not_exists(pk)',
        ExpressionAttributeValues: { ':n': { N: '1' } },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    expect(Attributes).toEqual({ ...key('c'), n: { N: '1' } });
    const invalid = await failure(
      db.send(
        new PutItemCommand({
          TableName,
          Item: key('d'),
          ReturnValuesOnConditionCheckFailure: 'ALL_NEW' as never,
        }),
      ),
    );
    expect(invalid.name).toBe('ValidationException');
  });
});
