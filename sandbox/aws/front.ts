import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allows, FUNCTION_PERMISSIONS, type Permissions } from '../../lib/config/index.ts';
import type { CorsConfig } from '../../lib/contract/index.ts';
import { s3CorsHeaders, s3Preflight } from './bucket-cors.ts';
import { type AwsAnswer, awsError } from './errors.ts';
import type { FaultPlan } from './faults.ts';
import { accessKeyOf, type Caller, callerOf, principalArn, SANDBOX_SECRET } from './identity.ts';
import {
  connectionsOperation,
  dynamodbOperation,
  type Operation,
  type ResourceNames,
  s3Operation,
  sqsOperation,
} from './operations.ts';
import { checkPresigned } from './presign.ts';

/** Which emulator a front stands before: dynalite, fauxqs (SQS and S3 on one port), or the gateway's `@connections`. */
export type FrontTarget = 'dynamodb' | 'fauxqs' | 'connections';

/** Options of {@link startAwsFront}. */
export interface AwsFrontOptions {
  target: FrontTarget;
  /** The emulator's base URL; its path (a stage) is kept in the front's own URL. */
  url: string;
  names: ResourceNames;
  faults?: FaultPlan;
  /** The file bucket's CORS rules. */
  bucketCors?: CorsConfig;
  /** The grants enforced. Default: {@link FUNCTION_PERMISSIONS}, what the stack deploys. */
  permissions?: Permissions;
}

/** A running front. */
export interface AwsFront {
  url: string;
  close(): Promise<void>;
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function operationOf(
  req: IncomingMessage,
  body: Buffer,
  path: string,
  query: URLSearchParams,
  options: AwsFrontOptions,
): Operation {
  const target = String(req.headers['x-amz-target'] ?? '');
  if (options.target === 'dynamodb') return dynamodbOperation(target, body, options.names);
  if (options.target === 'connections')
    return connectionsOperation(req.method ?? 'POST', path, options.names);
  if (target.startsWith('AmazonSQS.'))
    return sqsOperation(target.slice('AmazonSQS.'.length), body, options.names);
  const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  const action = form ? new URLSearchParams(body.toString('utf8')).get('Action') : null;
  if (action) return sqsOperation(action, body, options.names);
  return s3Operation(req, path, query, options.names);
}

type Forward = (
  req: IncomingMessage,
  body: Buffer,
) => Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>;

/**
 * A throttled batch write as DynamoDB answers it: 200, the first half of the items written and the
 * rest handed back as `UnprocessedItems`.
 */
async function partialBatch(req: IncomingMessage, body: Buffer, forward: Forward): Promise<AwsAnswer> {
  const input = JSON.parse(body.toString('utf8')) as { RequestItems: Record<string, unknown[]> };
  const [table, requests] = Object.entries(input.RequestItems)[0] ?? ['', []];
  const cut = Math.ceil(requests.length / 2);
  const applied = Buffer.from(
    JSON.stringify({ ...input, RequestItems: { [table]: requests.slice(0, cut) } }),
  );
  req.headers['content-length'] = String(applied.length);
  await forward(req, applied);
  const rest = requests.slice(cut);
  return {
    status: 200,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ UnprocessedItems: rest.length > 0 ? { [table]: rest } : {} }),
  };
}

const send = (res: ServerResponse, answer: AwsAnswer) => {
  res.writeHead(answer.status, answer.headers).end(answer.body);
};

/** What IAM and S3 would refuse this call with, if anything. */
function refusal(
  req: IncomingMessage,
  op: Operation,
  caller: Caller | undefined,
  parts: { path: string; query: URLSearchParams; body: Buffer },
  permissions: Permissions,
): AwsAnswer | undefined {
  if (!caller)
    return awsError(op.service, 'accessDenied', 'The security token included in the request is invalid.');
  if (op.service === 's3' && parts.query.has('X-Amz-Signature')) {
    const bad = checkPresigned(
      req.method ?? 'GET',
      parts.path,
      parts.query,
      req.headers,
      parts.body,
      SANDBOX_SECRET,
    );
    if (bad) return awsError('s3', bad.kind, bad.message);
  }
  if (caller.kind === 'admin' || (op.kind && allows(caller.fn, op.action, op.kind, permissions)))
    return undefined;
  return awsError(
    op.service,
    'accessDenied',
    `User: ${principalArn(caller)} is not authorized to perform: ${op.action} on resource: ${op.arn} because no identity-based policy allows the ${op.action} action`,
  );
}

/**
 * An HTTP front before one of the sandbox's AWS emulators, doing what AWS does and the emulators do
 * not: it knows each function's role by the key its requests are signed with and refuses, in the
 * service's own error form, any call that role's grants ({@link allows}) do not cover; it checks
 * presigned uploads as S3 does and answers the bucket's CORS; and it injects faults when asked.
 */
export async function startAwsFront(options: AwsFrontOptions): Promise<AwsFront> {
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true });
  const forward: Forward = (req, body) =>
    new Promise((resolve, reject) => {
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        async (answer) =>
          resolve({
            status: answer.statusCode ?? 502,
            headers: answer.headers,
            body: await readAll(answer),
          }),
      );
      out.on('error', reject);
      out.end(body);
    });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const url = new URL(req.url ?? '/', 'http://front');
    const parts = { path: url.pathname, query: url.searchParams, body };
    const origin = req.headers.origin;
    if (options.target === 'fauxqs' && req.method === 'OPTIONS' && options.bucketCors) {
      return send(res, s3Preflight(options.bucketCors, req.headers));
    }
    const op = operationOf(req, body, parts.path, parts.query, options);
    const caller = callerOf(accessKeyOf(req, parts.query));
    const permissions = options.permissions ?? FUNCTION_PERMISSIONS;
    const refused = refusal(req, op, caller, parts, permissions);
    if (refused) return send(res, refused);
    const fault = caller?.kind === 'function' ? options.faults?.draw(op.service, op.action) : undefined;
    if (fault === 'throttle' && op.action === 'dynamodb:BatchWriteItem') {
      return send(res, await partialBatch(req, body, forward));
    }
    if (fault === 'throttle' || fault === 'error') {
      return send(
        res,
        awsError(op.service, fault === 'throttle' ? 'throttle' : 'internal', 'Injected by the sandbox'),
      );
    }
    const delay = () => new Promise((resolve) => setTimeout(resolve, options.faults?.timeoutDelayMs ?? 0));
    if (fault === 'timeout-before') return void delay().then(() => req.socket.destroy());
    const answer = await forward(req, body);
    if (fault === 'timeout-after') return void delay().then(() => req.socket.destroy());
    if (
      answer.status === 404 &&
      op.action === 's3:GetObject' &&
      caller?.kind === 'function' &&
      !allows(caller.fn, 's3:ListBucket', 'bucket', permissions)
    ) {
      // Without s3:ListBucket, S3 will not say that a key does not exist.
      return send(res, awsError('s3', 'accessDenied', 'Access Denied'));
    }
    const cors =
      op.service === 's3' && origin && options.bucketCors
        ? s3CorsHeaders(options.bucketCors, origin, req.method ?? 'GET')
        : {};
    res.writeHead(answer.status, { ...answer.headers, ...cors }).end(answer.body);
  }

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const path = target.pathname === '/' ? '' : target.pathname;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
