import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFunction, ENTRY_FILE } from '../../infra/bundling.ts';
import { headerSignatureRefusal } from '../../sandbox/aws/signature.ts';

/**
 * The HTTP function as the stack deploys it (bundled, minified, Node's built-ins loaded with
 * `require`, the table client in its entry code), loaded by a Node process as Lambda loads it and
 * invoked with an API Gateway event. Its AWS calls go, through the SDK's and the table client's
 * endpoint variables, to a local server that answers as DynamoDB and Secrets Manager do and checks
 * each table call's signature with the SDK's signer.
 */

const DEMO_AGENTS = fileURLToPath(new URL('../../demo/agents.ts', import.meta.url));
const SECRET_KEY = 'bundle-secret';

interface Call {
  target: string;
  refused?: string;
}

let dir: string;
let server: Server;
let url: string;
const calls: Call[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-serves-'));
  await bundleFunction('http', DEMO_AGENTS, dir);
  server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const target = String(req.headers['x-amz-target']);
      const call: Call = { target };
      calls.push(call);
      const answer = (status: number, json: unknown, type = 'application/x-amz-json-1.0') =>
        res.writeHead(status, { 'content-type': type }).end(JSON.stringify(json));
      if (target === 'secretsmanager.GetSecretValue') {
        return answer(200, { Name: 'ref', SecretString: 'k'.repeat(64) }, 'application/x-amz-json-1.1');
      }
      const refused = await headerSignatureRefusal(req, body, SECRET_KEY, {
        service: 'dynamodb',
        region: 'us-east-1',
      });
      if (refused) {
        call.refused = refused.kind;
        return answer(400, {
          __type: 'com.amazon.coral.service#InvalidSignatureException',
          message: refused.message,
        });
      }
      // A rate-limit counter's update, then the session read: no such session.
      if (target.endsWith('.UpdateItem')) return answer(200, { Attributes: { count: { N: '1' } } });
      return answer(200, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const EVENT = {
  version: '2.0',
  routeKey: 'GET /api/sessions/{sessionId}',
  rawPath: '/api/sessions/s1',
  rawQueryString: '',
  headers: { host: 'api.example.com' },
  pathParameters: { sessionId: 's1' },
  isBase64Encoded: false,
  requestContext: {
    accountId: '000000000000',
    apiId: 'api',
    domainName: 'api.example.com',
    domainPrefix: 'api',
    requestId: 'req-1',
    routeKey: 'GET /api/sessions/{sessionId}',
    stage: '$default',
    time: '03/Dec/2026:10:00:00 +0000',
    timeEpoch: 1_796_292_000_000,
    http: {
      method: 'GET',
      path: '/api/sessions/s1',
      protocol: 'HTTP/1.1',
      sourceIp: '127.0.0.1',
      userAgent: 'test',
    },
    authorizer: { jwt: { claims: { sub: 'user-1' }, scopes: null } },
  },
};

describe('the bundled HTTP function', () => {
  it('answers a request, its table calls signed and sent over Node’s http module as the bundle loads it', async () => {
    const script = `globalThis.awslambda ??= { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
const { handler } = await import(${JSON.stringify(pathToFileURL(join(dir, ENTRY_FILE)).href)});
const context = { awsRequestId: 'invoke-1', functionName: 'http', getRemainingTimeInMillis: () => 10000 };
const result = await handler(${JSON.stringify(EVENT)}, context);
process.stdout.write(JSON.stringify(result));`;
    // Not spawnSync: the server that answers the calls runs in this process.
    const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        SWITCHBOARD_TABLE: 'table',
        SWITCHBOARD_QUEUE_URL: `${url}/000000000000/turns.fifo`,
        SWITCHBOARD_BUCKET: 'bucket',
        SWITCHBOARD_REF_KEY_SECRET: 'ref',
        LOG_LEVEL: 'ERROR',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDBUNDLE',
        AWS_SECRET_ACCESS_KEY: SECRET_KEY,
        AWS_SESSION_TOKEN: 'session-token',
        AWS_ENDPOINT_URL: url,
      },
    });
    // Warnings (a Node or SDK notice) may come; an error may not.
    expect(run.stderr).not.toMatch(/Error/);
    const result = JSON.parse(run.stdout) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'session_not_found' } });
    const table = calls.filter((c) => c.target.startsWith('DynamoDB_20120810.'));
    expect(table.map((c) => c.target)).toContain('DynamoDB_20120810.GetItem');
    expect(table.filter((c) => c.refused)).toEqual([]);
  });
});
