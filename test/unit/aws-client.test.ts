import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GetItem, TableClient } from '../../lib/aws/index.ts';

/**
 * The AWS JSON client (lib/aws) against a local server answering as DynamoDB does, beside the SDK's
 * DynamoDBClient against the same server: the clock corrected from an answer's `Date`, the
 * credentials of the SDK's default chain in its order, and `retry-after` within the retry budget.
 */

type Answer = { status: number; headers?: OutgoingHttpHeaders; body?: unknown };
interface Seen {
  date: string;
  authorization: string;
}

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const running of servers.splice(0)) {
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  }
});

/** A server answering each request with `answer(request, its number)`, and what it was sent. */
async function dynamo(answer: (req: IncomingMessage, n: number) => Answer) {
  const seen: Seen[] = [];
  const listening = createServer((req, res) => {
    req.resume().on('end', () => {
      seen.push({
        date: String(req.headers['x-amz-date']),
        authorization: String(req.headers.authorization),
      });
      const { status, headers, body } = answer(req, seen.length);
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
      res.end(JSON.stringify(body ?? {}));
    });
  });
  servers.push(listening);
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`, seen };
}

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const get = () => new GetItem({ TableName: 't', Key: { pk: 'a' } });
const sdkGet = () => new GetItemCommand({ TableName: 't', Key: { pk: { S: 'a' } } });
const amzTime = (value: string) =>
  Date.parse(value.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));

describe('clock skew', () => {
  /** A service whose clock is an hour ahead: it refuses a request dated more than 5 minutes from it. */
  const aheadByAnHour = (req: IncomingMessage): Answer => {
    const now = Date.now() + 3_600_000;
    const date = { date: new Date(now).toUTCString() };
    if (Math.abs(amzTime(String(req.headers['x-amz-date'])) - now) <= 300_000)
      return { status: 200, headers: date };
    const type = 'com.amazon.coral.service#InvalidSignatureException';
    return { status: 400, headers: date, body: { __type: type, message: 'Signature not yet current' } };
  };

  /** A refusal from a service whose clock agrees: [our attempts, the SDK's, requests seen]. */
  async function refusedOnce(): Promise<number[]> {
    const { url, seen } = await dynamo(() => ({
      status: 400,
      headers: { date: new Date().toUTCString() },
      body: {
        __type: 'com.amazon.coral.service#InvalidSignatureException',
        message: 'The signature does not match',
      },
    }));
    const ours = new TableClient({ region: 'eu-west-1', endpoint: url, credentials, maxAttempts: 3 });
    const refused = (await ours.send(get()).catch((e: unknown) => e)) as { $metadata: { attempts: number } };
    ours.destroy();
    const sdk = new DynamoDBClient({ region: 'eu-west-1', endpoint: url, credentials, maxAttempts: 3 });
    const sdkRefused = (await sdk.send(sdkGet()).catch((e: unknown) => e)) as {
      $metadata: { attempts: number };
    };
    sdk.destroy();
    return [refused.$metadata.attempts, sdkRefused.$metadata.attempts, seen.length];
  }

  it('takes the offset from the refusal’s Date and signs again with it, as the SDK does: 2 attempts, then 1; a refusal from a clock that agrees is not sent again', async () => {
    const { url, seen } = await dynamo(aheadByAnHour);
    const delays: number[] = [];
    const ours = new TableClient({
      region: 'eu-west-1',
      endpoint: url,
      credentials,
      maxAttempts: 3,
      sleep: async (ms) => void delays.push(ms),
    });
    await ours.send(get());
    await ours.send(get());
    ours.destroy();
    const sdk = new DynamoDBClient({ region: 'eu-west-1', endpoint: url, credentials, maxAttempts: 3 });
    const first = await sdk.send(sdkGet());
    const second = await sdk.send(sdkGet());
    sdk.destroy();
    expect(delays).toHaveLength(1);
    expect([first.$metadata.attempts, second.$metadata.attempts]).toEqual([2, 1]);
    expect(seen).toHaveLength(6);
    // Both dated their second and third requests by the service's clock, within a second or two.
    for (const [i, request] of seen.entries()) {
      const ahead = amzTime(request.date) - Date.now();
      if (i === 0 || i === 3) expect(ahead, `request ${i}`).toBeLessThan(60_000);
      else expect(ahead, `request ${i}`).toBeGreaterThan(3_590_000);
    }
    expect(await refusedOnce()).toEqual([1, 1, 2]);
  });

  it('sends a call refused with an expired signature once more, as the SDK does', async () => {
    let refusals = 0;
    const expiredOnce = (): Answer => {
      if (refusals > 0) return { status: 200, headers: { date: new Date().toUTCString() } };
      refusals += 1;
      return {
        status: 400,
        headers: { date: new Date().toUTCString() },
        body: {
          __type: 'com.amazon.coral.service#InvalidSignatureException',
          message: 'Signature expired: 20261207T000000Z is now earlier than 20261207T000500Z.',
        },
      };
    };
    const { url, seen } = await dynamo(expiredOnce);
    const ours = new TableClient({
      region: 'eu-west-1',
      endpoint: url,
      credentials,
      maxAttempts: 3,
      sleep: async () => {},
    });
    await ours.send(get());
    ours.destroy();
    const ourRequests = seen.length;
    refusals = 0;
    const sdk = new DynamoDBClient({ region: 'eu-west-1', endpoint: url, credentials, maxAttempts: 3 });
    const answer = await sdk.send(sdkGet()).catch((e: { $metadata: { attempts: number } }) => e);
    sdk.destroy();
    expect(ourRequests).toBe(2);
    expect(answer.$metadata.attempts).toBe(2);
  });
});

describe('credentials', () => {
  const NAMES = ['AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN'];
  const FILES = ['AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE'];
  let saved: Record<string, string | undefined>;
  let dir: string;
  beforeEach(() => {
    saved = Object.fromEntries([...NAMES, ...FILES].map((name) => [name, process.env[name]]));
    for (const name of NAMES) delete process.env[name];
    dir = mkdtempSync(join(tmpdir(), 'aws-client-credentials-'));
    writeFileSync(
      join(dir, 'credentials'),
      '[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s1\n' +
        '[ops]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = s2\n',
    );
    process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
    process.env.AWS_CONFIG_FILE = join(dir, 'config');
    // The warning the SDK prints when both a profile and a key are set.
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** The key id each client signs with: [ours, the SDK's]. */
  async function keys(url: string, seen: Seen[]): Promise<string[]> {
    const ours = new TableClient({ region: 'eu-west-1', endpoint: url, maxAttempts: 1 });
    await ours.send(get());
    ours.destroy();
    const sdk = new DynamoDBClient({ region: 'eu-west-1', endpoint: url, maxAttempts: 1 });
    await sdk.send(sdkGet());
    sdk.destroy();
    return seen.splice(0).map((s) => /Credential=([^/]+)\//.exec(s.authorization)?.[1] ?? '');
  }

  it('signs with the profile AWS_PROFILE names, not the environment’s key, as the SDK’s default chain does', async () => {
    const { url, seen } = await dynamo(() => ({ status: 200 }));
    process.env.AWS_ACCESS_KEY_ID = 'AKIDENV';
    process.env.AWS_SECRET_ACCESS_KEY = 'env-secret';
    expect(await keys(url, seen)).toEqual(['AKIDENV', 'AKIDENV']);
    process.env.AWS_PROFILE = 'ops';
    expect(await keys(url, seen)).toEqual(['AKIDPROFILE', 'AKIDPROFILE']);
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    delete process.env.AWS_PROFILE;
    expect(await keys(url, seen)).toEqual(['AKIDDEFAULT', 'AKIDDEFAULT']);
  });
});

describe('retry-after', () => {
  // The clock stands still (on a whole second, as HTTP dates are), so each wait is exact.
  const NOW = Math.floor(Date.now() / 1000) * 1000;
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
  });
  const throttled = {
    __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
    message: 'Rate exceeded',
  };

  /** The waits the client hands its sleep for a call answered `answers` in turn (then 200). */
  async function waits(answers: Answer[], maxAttempts = 4): Promise<number[]> {
    const { url } = await dynamo((_req, n) => answers[n - 1] ?? { status: 200 });
    const delays: number[] = [];
    const client = new TableClient({
      region: 'eu-west-1',
      endpoint: url,
      credentials,
      maxAttempts,
      sleep: async (ms) => void delays.push(ms),
    });
    await client.send(get()).catch(() => undefined);
    client.destroy();
    return delays;
  }

  it('waits as long as retry-after asks, within 5 s more than the backoff (seconds, milliseconds), for a retry it would make anyway', async () => {
    // Backoff: half of DynamoDB's 25 ms base (or of the throttling base, 1 s), doubled each retry.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(
      await waits([
        { status: 503, headers: { 'retry-after': '3' } },
        { status: 503, headers: { 'retry-after': '30' } },
        { status: 400, headers: { 'retry-after': '3' }, body: throttled },
      ]),
    ).toEqual([3_000, 25 + 5_000, 3_000]);
    expect(
      await waits([
        { status: 429, headers: { 'x-amz-retry-after': '1500' }, body: throttled },
        { status: 503, headers: { 'retry-after': '0' } },
        { status: 503, headers: { 'retry-after': 'soon' } },
      ]),
    ).toEqual([1_500, 25, 50]);
    // It makes no refusal retryable, and waits for no retry past the attempts.
    const denied = {
      status: 400,
      headers: { 'retry-after': '1' },
      body: { __type: 'com.amazon.coral.service#AccessDeniedException', message: 'no' },
    };
    expect(await waits([denied])).toEqual([]);
    const busy = { status: 503, headers: { 'retry-after': '1' } };
    expect(await waits([busy, busy, busy, busy], 2)).toEqual([1_000]);
  });

  it('reads an HTTP date, and waits nothing more for a date already past', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(
      await waits([
        { status: 503, headers: { 'retry-after': new Date(NOW + 4_000).toUTCString() } },
        { status: 503, headers: { 'retry-after': new Date(NOW - 60_000).toUTCString() } },
      ]),
    ).toEqual([4_000, 0]);
  });

  it('waits what the SDK’s standard retry strategy waits for the same answers', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const answers: Answer[] = [
      { status: 503, headers: { 'retry-after': '0.3' } },
      { status: 400, headers: { 'retry-after': '0.2' }, body: throttled },
    ];
    const ours = (await waits(answers)).reduce((sum, ms) => sum + ms, 0);
    const { url } = await dynamo((_req, n) => answers[n - 1] ?? { status: 200 });
    const sdk = new DynamoDBClient({ region: 'eu-west-1', endpoint: url, credentials, maxAttempts: 4 });
    const { $metadata } = await sdk.send(sdkGet());
    sdk.destroy();
    expect($metadata.attempts).toBe(3);
    // 300 ms for the 503 (its backoff 12 ms); the second retry's throttling backoff (1 s) over 200 ms.
    expect(ours).toBe(300 + 1_000);
    expect($metadata.totalRetryDelay).toBe(ours);
  });
});
