import { createHash } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetItem, PutItem, Query, SigV4Signer, TableClient } from '../../lib/aws/index.ts';
import { readSecret } from '../../lib/aws/secrets.ts';
import { FUNCTION_PERMISSIONS, type Permissions } from '../../lib/config/index.ts';
import { batchWrite } from '../../lib/store/index.ts';
import {
  checkPresigned,
  checksumRefusal,
  credentialsOf,
  FaultPlan,
  SANDBOX_SECRET,
  startAwsFront,
} from '../../sandbox/aws/index.ts';
import { SANDBOX_S3_MAX_BODY_BYTES } from '../../sandbox/fauxqs-server.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { SANDBOX_NAMES, SANDBOX_REGION } from '../../sandbox/services.ts';
import { testApp } from '../support/agents.ts';
import { api, testSandbox } from '../support/sandbox.ts';

/** The error a call fails with: its name and HTTP status, or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
    return `${e.name} ${e.$metadata?.httpStatusCode}`;
  }
}

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await testSandbox({ app: testApp().app });
});
afterAll(async () => {
  await sandbox?.close();
});

describe('the sandbox enforces each function role', () => {
  it('refuses a call outside the role with the service’s own AccessDenied', async () => {
    const { http, sweep, ws } = sandbox.runtimes;
    const { table, bucket, queueUrl } = http;
    const index = new Query({
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p',
      ExpressionAttributeValues: { ':p': 'x' },
    });
    expect(await outcome(http.db.send(index))).toBe('AccessDeniedException 400');
    expect(await outcome((await http.s3()).send(new ListObjectsV2Command({ Bucket: bucket })))).toBe(
      'AccessDenied 403',
    );
    expect(
      await outcome((await sweep.sqs()).send(new ReceiveMessageCommand({ QueueUrl: queueUrl }))),
    ).toMatch(/^AccessDenied(Exception)? 400$/);
    const post = new PostToConnectionCommand({ ConnectionId: 'c1', Data: 'x' });
    expect(
      await outcome(
        sandbox.runtimes.worker.db.send(new GetItem({ TableName: 'other', Key: { pk: 'a', sk: 'b' } })),
      ),
    ).toBe('AccessDeniedException 400');
    // The HTTP function has no @connections grant; the WebSocket function has, and meets the gateway.
    expect(await outcome((await http.connections!()).send(post))).toBe('AccessDeniedException 403');
    expect(await outcome((await ws.connections!()).send(post))).toBe('GoneException 410');
  });

  it('allows what the role grants: the sweep enqueues, the WebSocket function reads and writes attachments', async () => {
    const { sweep, ws } = sandbox.runtimes;
    const body = JSON.stringify({ probe: true });
    const send = new SendMessageCommand({
      QueueUrl: sweep.queueUrl,
      MessageBody: body,
      MessageGroupId: 'probe',
      MessageDeduplicationId: 'probe-1',
    });
    expect(await outcome((await sweep.sqs()).send(send))).toBe('ok');
    const key = 'attachments/probe-ws';
    const wsS3 = await ws.s3();
    expect(await outcome(wsS3.send(new PutObjectCommand({ Bucket: ws.bucket, Key: key, Body: 'hi' })))).toBe(
      'ok',
    );
    expect(await outcome(wsS3.send(new GetObjectCommand({ Bucket: ws.bucket, Key: key })))).toBe('ok');
  });

  it('refuses an object outside the key prefixes of the role, each key of a multi-object delete included', async () => {
    const { ws, sweep, worker } = sandbox.runtimes;
    const put = (Key: string) => new PutObjectCommand({ Bucket: ws.bucket, Key, Body: 'hi' });
    // Uploads are the HTTP function's: the WebSocket function may not write under files/.
    expect(await outcome((await ws.s3()).send(put('files/probe-ws')))).toBe('AccessDenied 403');
    // The sweep writes tombstones under files/ and nothing else.
    expect(await outcome((await sweep.s3()).send(put('files/probe-sweep')))).toBe('ok');
    expect(await outcome((await sweep.s3()).send(put('events/probe-sweep')))).toBe('AccessDenied 403');
    const remove = (keys: string[]) =>
      new DeleteObjectsCommand({
        Bucket: worker.bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      });
    const workerS3 = await worker.s3();
    expect(await outcome(workerS3.send(remove(['events/probe/1.json', 'screenshots/probe/1.json'])))).toBe(
      'ok',
    );
    // The worker deletes a session's objects, never an upload.
    expect(await outcome(workerS3.send(remove(['events/probe/1.json', 'files/probe-sweep'])))).toBe(
      'AccessDenied 403',
    );
  });

  it('answers a missing object with 403 to a role without s3:ListBucket and 404 to one with it', async () => {
    const get = () => new GetObjectCommand({ Bucket: sandbox.runtime.bucket, Key: 'files/never-written' });
    expect(await outcome((await sandbox.runtimes.http.s3()).send(get()))).toBe('AccessDenied 403');
    expect(await outcome((await sandbox.runtimes.worker.s3()).send(get()))).toBe('NoSuchKey 404');
  });

  it('fails a function the way AWS would when a grant is taken away', async () => {
    const withoutSend: Permissions = {
      ...FUNCTION_PERMISSIONS,
      http: FUNCTION_PERMISSIONS.http.filter((grant) => grant.resource !== 'queue'),
    };
    const app = testApp().app;
    const narrowed = await testSandbox({ app, permissions: withoutSend });
    const full = await testSandbox({ app });
    try {
      const chat = (id: string) => ({ id, session_id: id, agent_id: 'picky', content: 'hello' });
      const refused = await api(narrowed.url, 'POST', '/api/chat', chat('grant-taken'));
      expect(refused.status).toBe(500);
      expect(refused.json.error).toMatchObject({ code: 'internal_error' });
      const taken = await api(full.url, 'POST', '/api/chat', chat('grant-kept'));
      expect(taken.status).toBe(202);
    } finally {
      await narrowed.close();
      await full.close();
    }
  });
});

describe('presigned uploads are checked as S3 checks them', () => {
  async function presign(key: string, size: number, expiresIn = 60) {
    const { http } = sandbox.runtimes;
    return getSignedUrl(
      await http.s3(),
      new PutObjectCommand({ Bucket: http.bucket, Key: key, ContentLength: size }),
      {
        expiresIn,
      },
    );
  }
  const stored = async (key: string) =>
    outcome(
      (await sandbox.runtime.s3()).send(new GetObjectCommand({ Bucket: sandbox.runtime.bucket, Key: key })),
    );

  it('takes a body of the declared size', async () => {
    const url = await presign('files/exact', 5);
    const res = await fetch(url, { method: 'PUT', body: 'hello' });
    expect(res.status).toBe(200);
    expect(await stored('files/exact')).toBe('ok');
  });

  it('refuses a body whose size differs from the signed one, and stores nothing', async () => {
    const url = await presign('files/longer', 5);
    const res = await fetch(url, { method: 'PUT', body: 'hello, and more' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(await stored('files/longer')).toBe('NoSuchKey 404');
  });

  it('refuses a URL whose key was changed, and one that has expired', async () => {
    const url = await presign('files/mine', 5);
    const other = await fetch(url.replace('files/mine', 'files/theirs'), { method: 'PUT', body: 'hello' });
    expect(other.status).toBe(403);
    const expired = new URL(await presign('files/late', 5, 1));
    expired.searchParams.set('X-Amz-Date', '20200101T000000Z');
    const late = await fetch(expired, { method: 'PUT', body: 'hello' });
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('Request has expired');
  });

  it('refuses a presigned URL once its time has passed, though its signature holds', async () => {
    const url = new URL(await presign('files/timed', 5, 60));
    const headers = { host: url.host, 'content-length': '5' };
    const check = (now: number) =>
      checkPresigned(
        'PUT',
        url.pathname,
        url.searchParams,
        headers,
        Buffer.from('hello'),
        SANDBOX_SECRET,
        now,
      );
    expect(await check(Date.now())).toBeUndefined();
    expect(await check(Date.now() + 120_000)).toMatchObject({ kind: 'expired' });
    expect(
      await checkPresigned(
        'PUT',
        url.pathname,
        url.searchParams,
        { ...headers, 'content-length': '6' },
        Buffer.from('hello!'),
        SANDBOX_SECRET,
      ),
    ).toMatchObject({ kind: 'signature' });
  });

  it('answers the bucket’s CORS: a browser may PUT from any origin, not DELETE', async () => {
    const url = await presign('files/cors', 5);
    const preflight = (method: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': method,
          'access-control-request-headers': 'content-type',
        },
      });
    const put = await preflight('PUT');
    expect(put.status).toBe(200);
    expect(put.headers.get('access-control-allow-origin')).toBe('*');
    expect(put.headers.get('access-control-allow-methods')).toContain('PUT');
    expect((await preflight('DELETE')).status).toBe(403);
    const upload = await fetch(url, {
      method: 'PUT',
      body: 'hello',
      headers: { origin: 'https://app.example.com' },
    });
    expect(upload.headers.get('access-control-allow-origin')).toBe('*');
    expect(upload.headers.get('access-control-expose-headers')).toBe('ETag');
  });
});

describe('writes are checked as S3 checks them: checksums, If-None-Match, signed headers', () => {
  const sha256 = (body: string) => createHash('sha256').update(body).digest('base64');
  /** A URL bound as the runtime binds an upload: type, checksum and `If-None-Match: *` signed. */
  async function bound(key: string, body: string) {
    const { http } = sandbox.runtimes;
    const url = await getSignedUrl(
      await http.s3(),
      new PutObjectCommand({
        Bucket: http.bucket,
        Key: key,
        ContentType: 'text/plain',
        ContentLength: Buffer.byteLength(body),
        ChecksumSHA256: sha256(body),
        IfNoneMatch: '*',
      }),
      {
        expiresIn: 60,
        signableHeaders: new Set(['content-type']),
        unhoistableHeaders: new Set(['x-amz-checksum-sha256']),
      },
    );
    const headers = {
      'content-type': 'text/plain',
      'if-none-match': '*',
      'x-amz-checksum-sha256': sha256(body),
    };
    return { url, headers };
  }
  const put = async (url: string, headers: Record<string, string>, body: string) => {
    const res = await fetch(url, { method: 'PUT', headers, body });
    return `${res.status} ${/<Code>(\w+)<\/Code>/.exec(await res.text())?.[1] ?? ''}`.trim();
  };
  const stored = async (key: string) => {
    const s3 = await sandbox.runtime.s3();
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: sandbox.runtime.bucket, Key: key }));
      return `${got.ContentType} ${await got.Body?.transformToString()}`;
    } catch (error) {
      return (error as Error).name;
    }
  };

  it('stores the bytes the URL names, once: a second PUT meets 412 PreconditionFailed and changes nothing', async () => {
    const { url, headers } = await bound('files/once', 'hello');
    expect(await put(url, headers, 'hello')).toBe('200');
    expect(await put(url, headers, 'hello')).toBe('412 PreconditionFailed');
    expect(await stored('files/once')).toBe('text/plain hello');
  });

  it('refuses other bytes of the same length (400 BadDigest) and stores nothing', async () => {
    const { url, headers } = await bound('files/digest', 'hello');
    expect(await put(url, headers, 'HELLO')).toBe('400 BadDigest');
    expect(await stored('files/digest')).toBe('NoSuchKey');
  });

  it('refuses a signed header sent otherwise or left out, and an x-amz- header the URL did not sign', async () => {
    const { url, headers } = await bound('files/headers', 'hello');
    expect(await put(url, { ...headers, 'content-type': 'text/html' }, 'hello')).toBe(
      '403 SignatureDoesNotMatch',
    );
    const { 'if-none-match': _, ...unconditional } = headers;
    expect(await put(url, unconditional, 'hello')).toBe('403 SignatureDoesNotMatch');
    const { 'x-amz-checksum-sha256': __, ...unchecked } = headers;
    expect(await put(url, unchecked, 'hello')).toBe('403 SignatureDoesNotMatch');
    expect(await put(url, { ...headers, 'x-amz-checksum-crc32': 'AAAAAA==' }, 'hello')).toBe(
      '403 AccessDenied',
    );
    expect(await stored('files/headers')).toBe('NoSuchKey');
  });

  it('lets one of two conditional PUTs to a key at once store its bytes; the other meets 412', async () => {
    const first = await bound('files/race', 'one');
    const second = await bound('files/race', 'two');
    const answers = await Promise.all([
      put(first.url, first.headers, 'one'),
      put(second.url, second.headers, 'two'),
    ]);
    expect(answers.sort()).toEqual(['200', '412 PreconditionFailed']);
  });

  it('computes every checksum S3 takes as S3 does: the check values of "123456789"', () => {
    const body = Buffer.from('123456789');
    const check = (algorithm: string, hex: string) =>
      checksumRefusal({ [`x-amz-checksum-${algorithm}`]: Buffer.from(hex, 'hex').toString('base64') }, body)
        ?.kind ?? 'ok';
    expect(check('crc32', 'cbf43926')).toBe('ok');
    expect(check('crc32c', 'e3069283')).toBe('ok');
    expect(check('crc64nvme', 'ae8b14860a799888')).toBe('ok');
    expect(check('sha1', 'f7c3bc1d808e04732adf679965ccc34ca7ae3441')).toBe('ok');
    expect(check('crc32c', 'e3069284')).toBe('badDigest');
    expect(check('sha256', 'cbf43926')).toBe('invalidRequest');
    expect(
      checksumRefusal({ 'content-md5': createHash('md5').update('x').digest('base64') }, body),
    ).toMatchObject({
      kind: 'badDigest',
    });
  });

  it('refuses a signed write whose declared CRC32 or SHA-256 is not its body’s (400 BadDigest)', async () => {
    const { http } = sandbox.runtimes;
    const s3 = await http.s3();
    const write = (Key: string, checksum: Partial<PutObjectCommandInput>) =>
      outcome(s3.send(new PutObjectCommand({ Bucket: http.bucket, Key, Body: 'hello', ...checksum })));
    expect(await write('files/crc-bad', { ChecksumCRC32: 'AAAAAA==' })).toBe('BadDigest 400');
    expect(await write('files/sha-bad', { ChecksumSHA256: sha256('other') })).toBe('BadDigest 400');
    expect(await write('files/crc-good', { ChecksumCRC32: 'NhCmhg==' })).toBe('ok');
    expect(await write('files/sha-good', { ChecksumSHA256: sha256('hello') })).toBe('ok');
    expect(await stored('files/crc-bad')).toBe('NoSuchKey');
    expect(await stored('files/sha-bad')).toBe('NoSuchKey');
  });
});

describe('fault injection', () => {
  it('draws the same faults from the same seed', () => {
    const draws = (seed: number) => {
      const plan = new FaultPlan({ seed, rates: { dynamodb: { throttle: 0.2, error: 0.1, timeout: 0.1 } } });
      return Array.from({ length: 200 }, () => plan.draw('dynamodb', 'dynamodb:PutItem') ?? '-').join(',');
    };
    expect(draws(7)).toBe(draws(7));
    expect(draws(7)).not.toBe(draws(8));
    expect(
      draws(7)
        .split(',')
        .filter((d) => d !== '-').length,
    ).toBeGreaterThan(40);
  });

  it('hands back half of a throttled batch write; batchWrite sends the rest again until all is written', async () => {
    const faulty = await testSandbox({
      app: testApp().app,
      faults: { seed: 3, rates: { dynamodb: { throttle: 1 } } },
    });
    try {
      const { worker } = faulty.runtimes;
      const puts = Array.from({ length: 25 }, (_, i) => ({
        PutRequest: { Item: { pk: 'BATCH#1', sk: `ITEM#${String(i).padStart(2, '0')}` } },
      }));
      await batchWrite(worker, puts);
      const { Items = [] } = await faulty.runtime.db.send(
        new Query({
          TableName: worker.table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'BATCH#1' },
        }),
      );
      expect(Items).toHaveLength(25);
      // 25 → 12 → 6 → 3 → 1 → 0 items left: five calls, each throttled.
      const batches = faulty.faults?.injected.filter((f) => f.action === 'dynamodb:BatchWriteItem');
      expect(batches).toHaveLength(5);
    } finally {
      await faulty.close();
    }
  });

  // Every attempt of the put meets a timeout: its SDK backs off between them.
  it('fails calls as AWS does and applies a write whose answer was lost', { timeout: 90_000 }, async () => {
    const faulty = await testSandbox({
      app: testApp().app,
      faults: { seed: 1, rates: { dynamodb: { timeout: 1 }, sqs: { throttle: 1 } } },
    });
    try {
      const { http } = faulty.runtimes;
      const item = { pk: 'FAULT#1', sk: 'META', n: 1 };
      const put = await outcome(http.db.send(new PutItem({ TableName: http.table, Item: item })));
      expect(put).not.toBe('ok');
      const send = new SendMessageCommand({
        QueueUrl: http.queueUrl,
        MessageBody: '{}',
        MessageGroupId: 'g',
        MessageDeduplicationId: 'd',
      });
      expect(await outcome((await http.sqs()).send(send))).toMatch(/^Throttling(Exception)? 400$/);
      // Every attempt was a timeout: some reached the table before their answer was lost.
      const kinds = new Set(faulty.faults?.injected.map((f) => `${f.service} ${f.fault}`));
      expect(kinds.has('sqs throttle')).toBe(true);
      const after = faulty.faults?.injected.filter((f) => f.fault === 'timeout-after').length ?? 0;
      const read = await faulty.runtime.db.send(
        new GetItem({ TableName: http.table, Key: { pk: 'FAULT#1', sk: 'META' } }),
      );
      expect(read.Item !== undefined).toBe(after > 0);
    } finally {
      await faulty.close();
    }
  });
});

describe('table and secret calls are signed and checked as DynamoDB and Secrets Manager check them', () => {
  it('takes a call signed with the key’s secret and refuses one signed otherwise, or sent changed', async () => {
    // The emulator behind the front: it answers every call it is given, so what is refused is the front's doing.
    const forwarded: string[] = [];
    const emulator = createServer((req, res) => {
      forwarded.push(String(req.headers['x-amz-target']));
      req
        .resume()
        .on('end', () => res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
    });
    await new Promise<void>((resolve) => emulator.listen(0, '127.0.0.1', resolve));
    const front = await startAwsFront({
      target: 'dynamodb',
      url: `http://127.0.0.1:${(emulator.address() as AddressInfo).port}`,
      names: { ...SANDBOX_NAMES, region: SANDBOX_REGION, modelSecrets: [] },
    });
    const secrets = await startAwsFront({
      target: 'secrets',
      url: `http://127.0.0.1:${(emulator.address() as AddressInfo).port}`,
      names: { ...SANDBOX_NAMES, region: SANDBOX_REGION, modelSecrets: [] },
    });
    const client = (secretAccessKey: string, region = SANDBOX_REGION) =>
      new TableClient({
        region,
        endpoint: front.url,
        credentials: { ...credentialsOf('worker'), secretAccessKey },
        maxAttempts: 3,
      });
    const get = new GetItem({ TableName: SANDBOX_NAMES.table, Key: { pk: 'a', sk: 'b' } });
    const signed = client(SANDBOX_SECRET);
    const wrong = client('not-the-secret');
    /** A raw call: `body` signed, `sent` sent (the same unless a test changes it), `at` its date. */
    const raw = async (body: string, sent = body, at = new Date()) => {
      const url = new URL(front.url);
      const headers = {
        host: url.host,
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.GetItem',
      };
      const auth = new SigV4Signer('dynamodb', SANDBOX_REGION).sign(
        { method: 'POST', path: url.pathname, headers, body },
        credentialsOf('worker'),
        at,
      );
      const { host: _, ...rest } = headers;
      const response = await fetch(front.url, { method: 'POST', headers: { ...rest, ...auth }, body: sent });
      return `${response.status} ${String(((await response.json()) as { __type?: string }).__type).split('#')[1]}`;
    };
    const body = JSON.stringify({ TableName: SANDBOX_NAMES.table, Key: { pk: { S: 'a' }, sk: { S: 'b' } } });
    try {
      expect(await outcome(signed.send(get))).toBe('ok');
      expect(await raw(body)).toBe('200 undefined');
      expect(await outcome(wrong.send(get))).toBe('InvalidSignatureException 400');
      // A key's signature for another region is not one DynamoDB here takes.
      const elsewhere = client(SANDBOX_SECRET, 'eu-west-1');
      expect(await outcome(elsewhere.send(get))).toBe('InvalidSignatureException 400');
      elsewhere.destroy();
      // The signature covers the body: one changed after it was signed is refused.
      expect(await raw(body, body.replace('"a"', '"z"'))).toBe('400 InvalidSignatureException');
      // A request dated more than 15 minutes away is refused, its signature right or not.
      expect(await raw(body, body, new Date(Date.now() - 20 * 60_000))).toBe('400 InvalidSignatureException');
      expect(forwarded).toEqual(['DynamoDB_20120810.GetItem', 'DynamoDB_20120810.GetItem']);
      // The session-ref key's secret is read with the same signing, and checked the same way.
      const secretFor = (secretAccessKey: string) =>
        readSecret(
          {
            region: SANDBOX_REGION,
            endpoint: secrets.url,
            credentials: { ...credentialsOf('http'), secretAccessKey },
          },
          SANDBOX_NAMES.refKeySecret,
        );
      expect(await outcome(secretFor(SANDBOX_SECRET))).toBe('ok');
      expect(await outcome(secretFor('not-the-secret'))).toBe('InvalidSignatureException 400');
      expect(forwarded.at(-1)).toBe('secretsmanager.GetSecretValue');
      expect(forwarded).toHaveLength(3);
    } finally {
      for (const c of [signed, wrong]) c.destroy();
      await front.close();
      await secrets.close();
      emulator.closeAllConnections();
      await new Promise((resolve) => emulator.close(resolve));
    }
  });
});

describe('large objects: the sandbox takes what S3 takes in one PUT, well past fauxqs’s 11 MiB', () => {
  const SIZE = 20 * 1024 * 1024;
  const body = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i += 4096) body.writeUInt32BE(i, i);
  const sha = createHash('sha256').update(body).digest('hex');
  const read = async (key: string) => {
    const { http } = sandbox.runtimes;
    const got = await (await http.s3()).send(new GetObjectCommand({ Bucket: http.bucket, Key: key }));
    return Buffer.from((await got.Body?.transformToByteArray()) ?? []);
  };

  it('puts and gets a 20 MB object through a function’s front with the SDK', async () => {
    const { http } = sandbox.runtimes;
    const put = (await http.s3()).send(
      new PutObjectCommand({ Bucket: http.bucket, Key: 'files/large-sdk', Body: body }),
    );
    expect(await outcome(put)).toBe('ok');
    const got = await read('files/large-sdk');
    expect(got.length).toBe(SIZE);
    expect(createHash('sha256').update(got).digest('hex')).toBe(sha);
  });

  it('takes a 20 MB body on a presigned PUT', async () => {
    const { http } = sandbox.runtimes;
    const url = await getSignedUrl(
      await http.s3(),
      new PutObjectCommand({ Bucket: http.bucket, Key: 'files/large-presigned', ContentLength: SIZE }),
      { expiresIn: 60 },
    );
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
    expect(
      createHash('sha256')
        .update(await read('files/large-presigned'))
        .digest('hex'),
    ).toBe(sha);
  });

  it('refuses a PUT past its bound as S3 refuses one past 5 GB, before reading the body', async () => {
    const { http } = sandbox.runtimes;
    const url = new URL(
      await getSignedUrl(
        await http.s3(),
        new PutObjectCommand({ Bucket: http.bucket, Key: 'files/too-large', ContentLength: SIZE }),
        { expiresIn: 60 },
      ),
    );
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const out = request(
        {
          host: url.hostname,
          port: url.port,
          method: 'PUT',
          path: `${url.pathname}${url.search}`,
          headers: { 'content-length': String(SANDBOX_S3_MAX_BODY_BYTES + 1) },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += String(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      out.on('error', reject);
      out.flushHeaders();
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('<Code>EntityTooLarge</Code>');
  });

  it('refuses a PUT of unknown length (chunked, no Content-Length) before reading it, as S3 does', async () => {
    const { http } = sandbox.runtimes;
    const url = new URL(
      await getSignedUrl(
        await http.s3(),
        new PutObjectCommand({ Bucket: http.bucket, Key: 'files/chunked' }),
        {
          expiresIn: 60,
        },
      ),
    );
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const out = request(
        { host: url.hostname, port: url.port, method: 'PUT', path: `${url.pathname}${url.search}` },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += String(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      out.on('error', reject);
      // Without a length, Node sends the body chunked.
      out.write('part of a body');
      out.flushHeaders();
    });
    expect(answer.status).toBe(411);
    expect(answer.text).toContain('<Code>MissingContentLength</Code>');
  });
});
