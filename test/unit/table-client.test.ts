import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AwsCredentialIdentity,
  BatchGetItem,
  BatchWriteItem,
  GetItem,
  PutItem,
  paginateQuery,
  SigV4Signer,
  TableClient,
  UpdateItem,
} from '../../lib/aws/index.ts';
import { AwsServiceError } from '../../lib/errors/index.ts';
import { Sha256 } from '../../sandbox/aws/signature.ts';

/**
 * The table client against a local HTTP server that answers as DynamoDB does: what it sends (the
 * operation, the body in DynamoDB JSON, a signature the SDK's signer agrees with), what it makes of
 * the answers, and which failures it sends again. The end-to-end tests run it against dynalite
 * behind the sandbox's front, which checks every signature.
 */

type Reply = { status: number; body?: unknown; raw?: string; destroy?: boolean; hang?: boolean };
interface Seen {
  target: string;
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
}

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (!running) return;
  running.closeAllConnections();
  await new Promise((resolve) => running.close(resolve));
});

/** A server that answers each request with the next reply (the last one over and over). */
async function dynamo(replies: Reply[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const listening = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      seen.push({
        target: String(req.headers['x-amz-target']),
        body: JSON.parse(text),
        headers: req.headers,
      });
      const reply = replies[Math.min(seen.length - 1, replies.length - 1)] as Reply;
      if (reply.destroy) return void req.socket.destroy();
      if (reply.hang) return;
      res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'r1' });
      res.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, seen };
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
function client(url: string, maxAttempts = 4, delays: number[] = [], attemptTimeoutMs?: number) {
  return new TableClient({
    attemptTimeoutMs,
    region: 'eu-west-1',
    endpoint: url,
    credentials,
    maxAttempts,
    sleep: async (ms) => void delays.push(ms),
  });
}

const throttled = {
  status: 400,
  body: { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' },
};

describe('the table client', () => {
  it('sends plain items as DynamoDB JSON and answers plain items', async () => {
    const { url, seen } = await dynamo([
      { status: 200, body: { Item: { pk: { S: 'a' }, n: { N: '2' }, tags: { L: [{ S: 'x' }] } } } },
      { status: 200, body: {} },
    ]);
    const db = client(url);
    const { Item } = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));
    expect(Item).toEqual({ pk: 'a', n: 2, tags: ['x'] });
    await db.send(new PutItem({ TableName: 't', Item: { pk: 'a', gone: undefined, m: { x: true } } }));
    db.destroy();
    expect(seen.map((s) => s.target)).toEqual(['DynamoDB_20120810.GetItem', 'DynamoDB_20120810.PutItem']);
    expect(seen[0]?.body).toEqual({ TableName: 't', Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
    // Undefined values are left out, as the document client's removeUndefinedValues does.
    expect(seen[1]?.body).toEqual({
      TableName: 't',
      Item: { pk: { S: 'a' }, m: { M: { x: { BOOL: true } } } },
    });
  });

  it('converts the items of batch reads and writes, both ways', async () => {
    const { url, seen } = await dynamo([
      {
        status: 200,
        body: {
          Responses: { t: [{ pk: { S: 'a' } }] },
          UnprocessedKeys: { t: { Keys: [{ pk: { S: 'b' } }], ProjectionExpression: 'pk' } },
        },
      },
      { status: 200, body: { UnprocessedItems: { t: [{ DeleteRequest: { Key: { pk: { S: 'c' } } } }] } } },
    ]);
    const db = client(url);
    const read = await db.send(
      new BatchGetItem({
        RequestItems: { t: { Keys: [{ pk: 'a' }, { pk: 'b' }], ProjectionExpression: 'pk' } },
      }),
    );
    expect(read.Responses).toEqual({ t: [{ pk: 'a' }] });
    expect(read.UnprocessedKeys).toEqual({ t: { Keys: [{ pk: 'b' }], ProjectionExpression: 'pk' } });
    const written = await db.send(
      new BatchWriteItem({
        RequestItems: { t: [{ PutRequest: { Item: { pk: 'p' } } }, { DeleteRequest: { Key: { pk: 'c' } } }] },
      }),
    );
    db.destroy();
    expect(written.UnprocessedItems).toEqual({ t: [{ DeleteRequest: { Key: { pk: 'c' } } }] });
    expect(seen[0]?.body).toEqual({
      RequestItems: { t: { Keys: [{ pk: { S: 'a' } }, { pk: { S: 'b' } }], ProjectionExpression: 'pk' } },
    });
    expect(seen[1]?.body).toEqual({
      RequestItems: {
        t: [{ PutRequest: { Item: { pk: { S: 'p' } } } }, { DeleteRequest: { Key: { pk: { S: 'c' } } } }],
      },
    });
  });

  it('follows the pages of a query', async () => {
    const { url, seen } = await dynamo([
      { status: 200, body: { Items: [{ n: { N: '1' } }], LastEvaluatedKey: { pk: { S: 'k' } } } },
      { status: 200, body: { Items: [{ n: { N: '2' } }] } },
    ]);
    const db = client(url);
    const items: unknown[] = [];
    for await (const page of paginateQuery({ client: db }, { TableName: 't', KeyConditionExpression: 'x' })) {
      items.push(...(page.Items ?? []));
    }
    db.destroy();
    expect(items).toEqual([{ n: 1 }, { n: 2 }]);
    expect(seen[1]?.body.ExclusiveStartKey).toEqual({ pk: { S: 'k' } });
  });

  it("raises a refusal as the SDK does, with the answer's fields, and does not send it again", async () => {
    const { url, seen } = await dynamo([
      {
        status: 400,
        body: {
          __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
          message: 'The conditional request failed',
          Item: { status: { S: 'running' } },
        },
      },
    ]);
    const db = client(url);
    const error = await db
      .send(new UpdateItem({ TableName: 't', Key: { pk: 'a' }, UpdateExpression: 'SET x = :x' }))
      .catch((e: unknown) => e);
    db.destroy();
    expect(error).toBeInstanceOf(AwsServiceError);
    expect(error).toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'The conditional request failed',
      $fault: 'client',
      $metadata: { httpStatusCode: 400, requestId: 'r1', attempts: 1 },
      Item: { status: { S: 'running' } },
    });
    expect(seen).toHaveLength(1);
  });

  it('sends a throttled call again, with the throttling backoff, up to its attempts', async () => {
    const { url, seen } = await dynamo([throttled]);
    const delays: number[] = [];
    const db = client(url, 4, delays);
    const error = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } })).catch((e: unknown) => e);
    db.destroy();
    expect(error).toMatchObject({ name: 'ThrottlingException', $metadata: { attempts: 4 } });
    expect(seen).toHaveLength(4);
    // Full jitter: 0 to 1 s, 2 s, 4 s.
    expect(delays).toHaveLength(3);
    for (const [i, ms] of delays.entries()) {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(1_000 * 2 ** i);
    }
  });

  it('sends a 5xx, a page that is not JSON and a broken connection again, and answers the call that then succeeds', async () => {
    const { url, seen } = await dynamo([
      { status: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' } },
      { status: 502, raw: '<html>Bad gateway</html>' },
      { status: 200, destroy: true },
      { status: 200, body: { Item: { pk: { S: 'a' } } } },
    ]);
    const delays: number[] = [];
    const db = client(url, 10, delays);
    const { Item } = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
    db.destroy();
    expect(Item).toEqual({ pk: 'a' });
    expect(seen).toHaveLength(4);
    // The DynamoDB client's base: 25 ms, doubled each time, full jitter.
    for (const [i, ms] of delays.entries()) expect(ms).toBeLessThan(25 * 2 ** i);
  });

  it('abandons an attempt that gets no answer within its time, and sends the call again', async () => {
    const { url, seen } = await dynamo([
      { status: 200, hang: true },
      { status: 200, body: { Item: { pk: { S: 'a' } } } },
    ]);
    const db = client(url, 3, [], 100);
    const { Item } = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
    db.destroy();
    expect(Item).toEqual({ pk: 'a' });
    expect(seen).toHaveLength(2);
  });

  it('does not send again a 5xx the SDK does not retry (501)', async () => {
    const { url, seen } = await dynamo([{ status: 501, raw: 'Not Implemented' }]);
    const db = client(url);
    const error = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } })).catch((e: unknown) => e);
    db.destroy();
    expect(error).toMatchObject({ $fault: 'server', $metadata: { httpStatusCode: 501, attempts: 1 } });
    expect(seen).toHaveLength(1);
  });

  it('sends binary values in base64 and answers them as bytes, as the document client does', async () => {
    const { url, seen } = await dynamo([
      { status: 200, body: {} },
      {
        status: 200,
        body: { Item: { b: { B: 'AQI=' }, bs: { BS: ['AQ==', 'Ag=='] }, m: { M: { x: { B: 'Aw==' } } } } },
      },
    ]);
    const db = client(url);
    await db.send(
      new PutItem({ TableName: 't', Item: { pk: 'a', b: new Uint8Array([1, 2]), l: [Buffer.from([3])] } }),
    );
    const { Item } = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
    db.destroy();
    expect(seen[0]?.body).toEqual({
      TableName: 't',
      Item: { pk: { S: 'a' }, b: { B: 'AQI=' }, l: { L: [{ B: 'Aw==' }] } },
    });
    const { b, bs, m } = Item as { b: Uint8Array; bs: Set<Uint8Array>; m: { x: Uint8Array } };
    expect(b).toEqual(new Uint8Array([1, 2]));
    expect([...bs].map((bytes) => [...bytes])).toEqual([[1], [2]]);
    expect([...m.x]).toEqual([3]);
  });

  it('takes its endpoint from AWS_ENDPOINT_URL_DYNAMODB, and signs with the environment’s key or, off Lambda, the SDK’s default chain (a profile here)', async () => {
    const { url, seen } = await dynamo([{ status: 200, body: {} }]);
    const dir = mkdtempSync(join(tmpdir(), 'table-client-profile-'));
    const saved = { ...process.env };
    try {
      writeFileSync(
        join(dir, 'credentials'),
        '[default]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n',
      );
      process.env.AWS_ACCESS_KEY_ID = 'AKIDENV';
      process.env.AWS_SECRET_ACCESS_KEY = 'env-secret';
      // No endpoint given: the SDK's variable for the service names it, as it does for the SDK.
      process.env.AWS_ENDPOINT_URL_DYNAMODB = url;
      const fromEnv = new TableClient({ region: 'eu-west-1', maxAttempts: 1 });
      await fromEnv.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
      fromEnv.destroy();
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      delete process.env.AWS_SESSION_TOKEN;
      delete process.env.AWS_PROFILE;
      process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
      process.env.AWS_CONFIG_FILE = join(dir, 'config');
      const fromProfile = new TableClient({ region: 'eu-west-1', endpoint: url, maxAttempts: 1 });
      await fromProfile.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
      fromProfile.destroy();
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      rmSync(dir, { recursive: true, force: true });
    }
    const keys = seen.map((s) => /Credential=([^/]+)\//.exec(String(s.headers.authorization))?.[1]);
    expect(keys).toEqual(['AKIDENV', 'AKIDPROFILE']);
  });

  it('names an answer that is not JSON by its status', async () => {
    const { url } = await dynamo([{ status: 503, raw: 'Service Unavailable' }]);
    const db = client(url, 1);
    const error = await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } })).catch((e: unknown) => e);
    db.destroy();
    expect(error).toMatchObject({
      name: 'InternalServerError',
      $fault: 'server',
      $metadata: { httpStatusCode: 503 },
    });
  });

  it('stops retrying when its retry quota is spent, as the SDK does', async () => {
    const { url, seen } = await dynamo([throttled]);
    // 500 in the quota, 5 per throttled retry: 100 retries, then none.
    const db = client(url, 1_000);
    await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } })).catch(() => undefined);
    db.destroy();
    expect(seen).toHaveLength(101);
  });

  it('runs the middleware around each call once, whatever its retries', async () => {
    const { url } = await dynamo([throttled, { status: 200, body: { Item: { pk: { S: 'a' } } } }]);
    const db = client(url);
    const calls: unknown[] = [];
    db.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        calls.push([context.commandName, args.input.TableName, result.output.Item]);
        return result;
      },
      { step: 'initialize', name: 'count' },
    );
    await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
    expect(db.middlewareStack.remove('count')).toBe(true);
    await db.send(new GetItem({ TableName: 't', Key: { pk: 'a' } }));
    db.destroy();
    expect(calls).toEqual([['GetItemCommand', 't', { pk: 'a' }]]);
  });
});

describe('the table signer', () => {
  const request = {
    method: 'POST',
    path: '/',
    headers: {
      host: 'dynamodb.eu-west-1.amazonaws.com',
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.PutItem',
    },
    body: JSON.stringify({ TableName: 't', Item: { text: { S: 'héllo  wörld ✓' } } }),
  };

  it.each<[string, AwsCredentialIdentity, string]>([
    ['a long-lived key', credentials, '/'],
    ['a temporary key', { ...credentials, sessionToken: 'token/with+chars==' }, '/'],
    ['an encoded path', credentials, '/a%20b'],
    ['a path ending in a slash', credentials, '/prefix/'],
    ['empty and dot segments', credentials, '/x//y/./z/../w'],
    ['a reserved character', credentials, '/a:b'],
  ])('signs as the SDK does, with %s', async (_name, key, path) => {
    const at = new Date('2026-12-03T10:20:30.456Z');
    const ours = new SigV4Signer('dynamodb', 'eu-west-1').sign({ ...request, path }, key, at);
    const sdk = await new SignatureV4({
      service: 'dynamodb',
      region: 'eu-west-1',
      credentials: key,
      sha256: Sha256,
      applyChecksum: false,
    }).sign(
      {
        ...request,
        path,
        protocol: 'https:',
        hostname: request.headers.host,
        query: {},
        headers: { ...request.headers },
      },
      { signingDate: at },
    );
    expect(ours.authorization).toBe(sdk.headers.authorization);
    expect(ours['x-amz-date']).toBe('20261203T102030Z');
    expect(ours['x-amz-security-token']).toBe(key.sessionToken);
  });
});
