/**
 * A cold start as Lambda runs it for the HTTP function: a Node process that imports the built bundle
 * and serves one request (`GET /api/sessions/{id}` for a session that does not exist: the caller's
 * rate-limit counter is updated, the session read, a 404 answered). Its AWS calls go, through the
 * endpoint variables the SDK and the table client read, to {@link startLocalAws}: a server that
 * answers as DynamoDB and Secrets Manager do and checks each call's signature with the SDK's signer. Used by `bench/bundles.ts` (the import and the first request, timed) and by
 * `test/infra/bundle-serves.test.ts` (the bundle serves the request).
 */
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { headerSignatureRefusal } from '../sandbox/aws/signature.ts';

/** The secret the process's key signs with; the server checks signatures against it. */
const SECRET_KEY = 'first-request-secret';
const REGION = 'us-east-1';

/** One call the server received: its `X-Amz-Target`, and why it was refused, if it was. */
export interface LocalAwsCall {
  target: string;
  refused?: string;
}

/** A running {@link startLocalAws}. */
export interface LocalAws {
  url: string;
  calls: LocalAwsCall[];
  close(): Promise<void>;
}

/** Starts the local DynamoDB and Secrets Manager the first request talks to. */
export async function startLocalAws(): Promise<LocalAws> {
  const calls: LocalAwsCall[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const target = String(req.headers['x-amz-target']);
      const call: LocalAwsCall = { target };
      calls.push(call);
      const answer = (status: number, json: unknown, type = 'application/x-amz-json-1.0') =>
        res.writeHead(status, { 'content-type': type }).end(JSON.stringify(json));
      const secrets = target.startsWith('secretsmanager.');
      const refused = await headerSignatureRefusal(req, Buffer.concat(chunks), SECRET_KEY, {
        service: secrets ? 'secretsmanager' : 'dynamodb',
        region: REGION,
      });
      if (refused) {
        call.refused = refused.kind;
        return answer(400, {
          __type: 'com.amazon.coral.service#InvalidSignatureException',
          message: refused.message,
        });
      }
      if (secrets) {
        return answer(200, { Name: 'ref', SecretString: 'k'.repeat(64) }, 'application/x-amz-json-1.1');
      }
      // The rate-limit counter's update, then the session read: no such session.
      if (target.endsWith('.UpdateItem')) return answer(200, { Attributes: { count: { N: '1' } } });
      return answer(200, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

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
      userAgent: 'bench',
    },
    authorizer: { jwt: { claims: { sub: 'user-1' }, scopes: null } },
  },
};

/** What the first request answered, and the process's wall time from spawn to exit. */
export interface FirstRequest {
  statusCode: number;
  body: string;
  stderr: string;
  ms: number;
}

/**
 * Runs a Node process that imports the HTTP function's bundle at `bundleUrl` (a `file:` URL), invokes
 * its handler once with the request above, prints the answer and exits. Asynchronous: the server it
 * calls runs in this process.
 */
export async function firstRequest(bundleUrl: string, aws: LocalAws): Promise<FirstRequest> {
  const script = `globalThis.awslambda ??= { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
const { handler } = await import(${JSON.stringify(bundleUrl)});
const context = { awsRequestId: 'invoke-1', functionName: 'http', getRemainingTimeInMillis: () => 10000 };
const result = await handler(${JSON.stringify(EVENT)}, context);
process.stdout.write(JSON.stringify(result));`;
  const started = performance.now();
  const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      SWITCHBOARD_TABLE: 'table',
      SWITCHBOARD_QUEUE_URL: `${aws.url}/000000000000/turns.fifo`,
      SWITCHBOARD_BUCKET: 'bucket',
      SWITCHBOARD_REF_KEY_SECRET: 'ref',
      LOG_LEVEL: 'ERROR',
      // As on Lambda, where the AWS client reads no shared config file (lib/aws/settings.ts).
      AWS_LAMBDA_FUNCTION_NAME: 'http',
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'AKIDFIRSTREQUEST',
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_SESSION_TOKEN: 'session-token',
      AWS_ENDPOINT_URL: aws.url,
    },
  });
  const ms = performance.now() - started;
  const result = JSON.parse(run.stdout) as { statusCode: number; body: string };
  return { statusCode: result.statusCode, body: result.body, stderr: run.stderr, ms };
}
