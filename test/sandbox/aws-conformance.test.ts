import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  GetItem,
  PutItem,
  Query,
  TableClient,
  type TableClientConfig,
  UpdateItem,
} from '../../lib/aws/index.ts';
import { readSecret } from '../../lib/aws/secrets.ts';
import {
  type AwsFront,
  credentialsOf,
  SANDBOX_SECRET,
  secretArn,
  startAwsFront,
} from '../../sandbox/aws/index.ts';
import { startSecretsManager } from '../../sandbox/secrets-manager.ts';
import {
  type LocalServices,
  SANDBOX_NAMES,
  SANDBOX_REGION,
  startLocalServices,
} from '../../sandbox/services.ts';

/**
 * The table's own client (lib/aws) and the SDK's DynamoDB client making the same calls to the
 * sandbox's table (dynalite behind the front that checks every signature with the SDK's signer and
 * every call against the worker's grants): the same answers and refusals, the same signed headers
 * that matter, the same number of attempts with a wrong clock, the same refusal of settings that
 * cannot apply.
 */

const TABLE = SANDBOX_NAMES.table;
let services: LocalServices;
let front: AwsFront;
let recorder: Server;
/** Every request the front was sent, through the recorder before it. */
const seen: IncomingHttpHeaders[] = [];
/** The `Date` of every answer the front gave, as AWS dates its answers. */
const dated: (string | undefined)[] = [];
let url: string;

beforeAll(async () => {
  services = await startLocalServices({});
  front = await startAwsFront({
    target: 'dynamodb',
    url: services.dynamodbEndpoint,
    names: { ...SANDBOX_NAMES, region: SANDBOX_REGION, modelSecrets: [] },
  });
  const target = new URL(front.url);
  recorder = createServer((req, res) => {
    seen.push(req.headers);
    const out = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        dated.push(answer.headers.date);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  recorder?.closeAllConnections();
  await new Promise((resolve) => recorder?.close(resolve));
  await front?.close();
  await services?.stop();
});
afterEach(() => {
  seen.length = 0;
  dated.length = 0;
});

/** The two clients, configured alike: the worker's key, the front's endpoint, the sandbox's region. */
function clients(options: Partial<TableClientConfig & DynamoDBClientConfig> = {}) {
  // Credentials left undefined are the default chain's to find.
  const config = { region: SANDBOX_REGION, endpoint: url, credentials: credentialsOf('worker'), ...options };
  const ours = new TableClient({
    maxAttempts: 3,
    ...config,
    sleep: async () => undefined,
  } as TableClientConfig);
  const sdk = DynamoDBDocumentClient.from(
    new DynamoDBClient({ maxAttempts: 3, ...config } as DynamoDBClientConfig),
  );
  const destroy = () => {
    ours.destroy();
    sdk.destroy();
  };
  return { ours, sdk, destroy };
}

/** A call's answer, or the refusal it met: its name, fault and status. */
async function outcome(call: Promise<unknown>): Promise<unknown> {
  try {
    const { $metadata: _, ...answer } = (await call) as Record<string, unknown>;
    return answer;
  } catch (error) {
    const e = error as Error & { $fault?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    return status ? { refused: e.name, fault: e.$fault, status } : { refused: e.name, message: e.message };
  }
}

const signedHeaders = (headers: IncomingHttpHeaders) =>
  /SignedHeaders=([^,]+)/.exec(String(headers.authorization))?.[1]?.split(';') ?? [];

/** The calls both clients make, each as the own client and the SDK's document client send it. */
function calls(
  ours: TableClient,
  sdk: DynamoDBDocumentClient,
): [() => Promise<unknown>, () => Promise<unknown>][] {
  const Key = { pk: 'conformance', sk: 'a' };
  const update = {
    TableName: TABLE,
    Key,
    UpdateExpression: 'SET n = :n',
    ConditionExpression: 'n = :old',
    ExpressionAttributeValues: { ':n': 2, ':old': 5 },
  };
  const query = {
    TableName: TABLE,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': 'conformance' },
  };
  return [
    [
      () => ours.send(new PutItem({ TableName: TABLE, Item: ITEM })),
      () => sdk.send(new PutCommand({ TableName: TABLE, Item: ITEM })),
    ],
    [
      () => ours.send(new GetItem({ TableName: TABLE, Key })),
      () => sdk.send(new GetCommand({ TableName: TABLE, Key })),
    ],
    [() => ours.send(new UpdateItem(update)), () => sdk.send(new UpdateCommand(update))],
    [() => ours.send(new Query(query)), () => sdk.send(new QueryCommand(query))],
    // A table the worker's role has no grant on.
    [
      () => ours.send(new GetItem({ TableName: 'other', Key })),
      () => sdk.send(new GetCommand({ TableName: 'other', Key })),
    ],
  ];
}
const ITEM = { pk: 'conformance', sk: 'a', n: 1, tags: ['x'] };

/** The headers AWS asks to be signed (`x-amz-security-token` with a temporary key). */
const CHECKED = ['content-type', 'host', 'x-amz-date', 'x-amz-target'];
/** What the SDK signs besides: its bookkeeping (invocation id, attempt, user agent), the body's length and hash. */
const SDK_EXTRA = [
  'amz-sdk-invocation-id',
  'amz-sdk-request',
  'content-length',
  'x-amz-content-sha256',
  'x-amz-user-agent',
];

/** The settings both clients are given alike, and the key both should sign with under them. */
const SETTINGS: {
  name: string;
  key: string;
  token?: string;
  env?: Record<string, string>;
  config: object;
}[] = [
  {
    name: 'a temporary key given',
    key: 'sandbox-worker',
    token: 'a-session-token',
    config: { credentials: { ...credentialsOf('worker'), sessionToken: 'a-session-token' } },
  },
  {
    name: 'a profile named in AWS_PROFILE beside a key in the environment',
    key: 'sandbox-worker',
    env: {
      AWS_PROFILE: 'operator',
      AWS_ACCESS_KEY_ID: credentialsOf('http').accessKeyId,
      AWS_SECRET_ACCESS_KEY: SANDBOX_SECRET,
    },
    config: { credentials: undefined },
  },
  {
    name: 'a clock an hour ahead',
    key: 'sandbox-worker',
    config: { systemClockOffset: 3_600_000 },
  },
];

describe('the table’s own client and the SDK’s, against the sandbox', () => {
  it('answer the same calls alike, refusals included, signing the same headers with the same key, in every setting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aws-conformance-'));
    writeFileSync(
      join(dir, 'credentials'),
      `[operator]\naws_access_key_id = ${credentialsOf('worker').accessKeyId}\naws_secret_access_key = ${SANDBOX_SECRET}\n`,
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const saved = { ...process.env };
    try {
      for (const setting of SETTINGS) {
        process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
        process.env.AWS_CONFIG_FILE = join(dir, 'config');
        Object.assign(process.env, setting.env);
        const { ours, sdk, destroy } = clients(setting.config);
        const answers: unknown[][] = [];
        try {
          for (const [own, theirs] of calls(ours, sdk)) {
            answers.push(await Promise.all([outcome(own()), outcome(theirs())]));
          }
        } finally {
          destroy();
          for (const name of Object.keys(setting.env ?? {})) delete process.env[name];
        }
        for (const [own, theirs] of answers) expect(own, setting.name).toEqual(theirs);
        expect(
          answers.map(([own]) => own),
          setting.name,
        ).toMatchObject([
          {},
          { Item: ITEM },
          { refused: 'ConditionalCheckFailedException', fault: 'client', status: 400 },
          { Count: 1, Items: [ITEM] },
          { refused: 'AccessDeniedException', fault: 'client', status: 400 },
        ]);
        const requests = seen.splice(0);
        const checked = [...CHECKED, ...(setting.token ? ['x-amz-security-token'] : [])].sort();
        for (const headers of requests) {
          const sdkSent = headers['x-amz-user-agent'] !== undefined;
          expect(signedHeaders(headers), setting.name).toEqual(
            sdkSent ? [...checked, ...SDK_EXTRA].sort() : checked,
          );
          expect(/Credential=([^/]+)\//.exec(String(headers.authorization))?.[1], setting.name).toBe(
            setting.key,
          );
          expect(headers['x-amz-security-token'], setting.name).toBe(setting.token);
        }
      }
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
      warn.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with a clock an hour wrong, succeed in 2 attempts and then in 1, the sandbox’s Date correcting it', async () => {
    const { ours, sdk, destroy } = clients({ systemClockOffset: 3_600_000 });
    const get = { TableName: TABLE, Key: { pk: 'x', sk: 'y' } };
    const attempts: number[] = [];
    try {
      for (let i = 0; i < 2; i += 1) {
        await ours.send(new GetItem(get));
        attempts.push(seen.splice(0).length);
      }
      for (let i = 0; i < 2; i += 1) {
        const { $metadata } = await sdk.send(new GetCommand(get));
        attempts.push($metadata.attempts ?? 0);
        seen.length = 0;
      }
    } finally {
      destroy();
    }
    expect(attempts).toEqual([2, 1, 2, 1]);
    // The correction comes from the front's answers, each dated as AWS dates its own.
    expect(dated.length).toBeGreaterThanOrEqual(6);
    for (const date of dated) expect(Math.abs(Date.parse(String(date)) - Date.now())).toBeLessThan(60_000);
  });

  it('refuse FIPS and dual-stack with the sandbox’s endpoint, before sending anything', async () => {
    for (const setting of ['useFipsEndpoint', 'useDualstackEndpoint'] as const) {
      const { ours, sdk, destroy } = clients({ [setting]: true });
      const get = { TableName: TABLE, Key: { pk: 'x', sk: 'y' } };
      const own = await outcome(ours.send(new GetItem(get)));
      const theirs = await outcome(sdk.send(new GetCommand(get)));
      destroy();
      expect(own).toEqual(theirs);
      expect(own).toMatchObject({ refused: 'EndpointError' });
    }
    expect(seen).toEqual([]);
  });
});

describe('the secret reader and the SDK’s Secrets Manager client, against the sandbox', () => {
  it('read a granted secret alike, refuse others alike, and sign the same headers with the same key', async () => {
    const name = SANDBOX_NAMES.refKeySecret;
    const emulator = await startSecretsManager({
      name,
      arn: secretArn(name, SANDBOX_REGION),
      value: 'the key',
    });
    const secretsFront = await startAwsFront({
      target: 'secrets',
      url: emulator.url,
      names: { ...SANDBOX_NAMES, region: SANDBOX_REGION, modelSecrets: [] },
    });
    const sent: IncomingHttpHeaders[] = [];
    const target = new URL(secretsFront.url);
    const spy = createServer((req, res) => {
      sent.push(req.headers);
      const out = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
    // The HTTP function's role may read the session-ref key's secret, and no other.
    const config = { region: SANDBOX_REGION, endpoint, credentials: credentialsOf('http') };
    const sdk = new SecretsManagerClient({ ...config, maxAttempts: 3 });
    const read = async (SecretId: string) => {
      const [own, theirs] = await Promise.all([
        outcome(readSecret(config, SecretId).then((SecretString) => ({ SecretString }))),
        outcome(
          sdk.send(new GetSecretValueCommand({ SecretId })).then(({ SecretString }) => ({ SecretString })),
        ),
      ]);
      return { own, theirs };
    };
    try {
      const granted = await read(name);
      const other = await read('another-secret');
      expect(granted.own).toEqual({ SecretString: 'the key' });
      expect(granted.theirs).toEqual(granted.own);
      expect(other.own).toMatchObject({ refused: 'AccessDeniedException', fault: 'client', status: 400 });
      expect(other.theirs).toEqual(other.own);
      expect(sent).toHaveLength(4);
      for (const headers of sent) {
        const sdkSent = headers['x-amz-user-agent'] !== undefined;
        expect(signedHeaders(headers)).toEqual(sdkSent ? [...CHECKED, ...SDK_EXTRA].sort() : CHECKED);
        expect(/Credential=([^/]+)\//.exec(String(headers.authorization))?.[1]).toBe(
          credentialsOf('http').accessKeyId,
        );
        expect(headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
      }
    } finally {
      sdk.destroy();
      spy.closeAllConnections();
      await new Promise((resolve) => spy.close(resolve));
      await secretsFront.close();
      await emulator.close();
    }
  });
});
