import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allows, FUNCTION_PERMISSIONS, type Permissions } from '../../lib/config/index.ts';
import type { CorsConfig } from '../../lib/contract/index.ts';
import { SANDBOX_S3_MAX_BODY_BYTES } from '../fauxqs-server.ts';
import { loopbackOnly } from '../host-check.ts';
import { s3CorsHeaders, s3Preflight } from './bucket-cors.ts';
import { checksumRefusal } from './checksums.ts';
import { type AwsAnswer, awsError } from './errors.ts';
import type { FaultPlan } from './faults.ts';
import { type Forwarded, forwarder, partialBatch, readAll } from './forward.ts';
import { accessKeyOf, callerOf, SANDBOX_SECRET } from './identity.ts';
import { ObjectWrites, preconditionRefusal } from './object-writes.ts';
import { type FrontTarget, operationOf } from './operation-of.ts';
import type { Operation, ResourceNames } from './operations.ts';
import { refusal } from './refusal.ts';
import { headerSignatureRefusal } from './signature.ts';

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

const send = (res: ServerResponse, answer: AwsAnswer | Forwarded) => {
  res.writeHead(answer.status, answer.headers).end(answer.body);
};

/**
 * An HTTP front before one of the sandbox's AWS emulators, doing what AWS does and the emulators do
 * not: it knows each function's role by the key its requests are signed with and refuses, in the
 * service's own error form, any call that role's grants ({@link allows}) do not cover; it checks
 * presigned uploads as S3 does, verifies the checksums a write declares, applies `If-None-Match: *`
 * on a PUT (fauxqs does neither) and answers the bucket's CORS; and it injects faults when asked.
 */
export async function startAwsFront(options: AwsFrontOptions): Promise<AwsFront> {
  const target = new URL(options.url);
  const { forward, head, close: closeAgent } = forwarder(target);
  const writes = new ObjectWrites();

  /** Passes a call on; a PUT of an object first meets its preconditions, as one step with its write. */
  function apply(req: IncomingMessage, body: Buffer, op: Operation, path: string) {
    if (op.action !== 's3:PutObject') return forward(req, body);
    return writes.run(path, async () => {
      const refused = await preconditionRefusal(req.headers, async () => (await head(path)) === 200);
      return refused ? awsError('s3', refused.kind, refused.message) : forward(req, body);
    });
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.target === 'fauxqs' && req.method === 'PUT' && req.headers['content-length'] === undefined) {
      // S3 takes no object of unknown length: a chunked PUT is refused before its body is read.
      res.setHeader('connection', 'close');
      return send(
        res,
        awsError('s3', 'missingContentLength', 'You must provide the Content-Length HTTP header.'),
      );
    }
    if (
      options.target === 'fauxqs' &&
      Number(req.headers['content-length'] ?? 0) > SANDBOX_S3_MAX_BODY_BYTES
    ) {
      // As S3 answers a PUT past its 5 GB, before the body is read (and without reading it).
      res.setHeader('connection', 'close');
      const limit = `${SANDBOX_S3_MAX_BODY_BYTES / 1024 ** 3} GiB`;
      return send(
        res,
        awsError(
          's3',
          'entityTooLarge',
          `Your proposed upload exceeds the sandbox's maximum allowed object size (${limit}).`,
        ),
      );
    }
    const body = await readAll(req);
    const url = new URL(req.url ?? '/', 'http://front');
    const parts = { path: url.pathname, query: url.searchParams, body };
    const origin = req.headers.origin;
    if (options.target === 'fauxqs' && req.method === 'OPTIONS' && options.bucketCors) {
      return send(res, s3Preflight(options.bucketCors, req.headers));
    }
    const op = operationOf(req, body, parts.path, parts.query, options.target, options.names);
    const caller = callerOf(accessKeyOf(req, parts.query));
    const permissions = options.permissions ?? FUNCTION_PERMISSIONS;
    // AWS checks a known key's signature before its grants.
    // The services Switchboard signs its own calls to (lib/aws): the table and the secrets.
    const unsigned =
      caller && (op.service === 'dynamodb' || op.service === 'secretsmanager')
        ? await headerSignatureRefusal(req, body, SANDBOX_SECRET, {
            service: op.service,
            region: options.names.region,
          })
        : undefined;
    if (unsigned) return send(res, awsError(op.service, unsigned.kind, unsigned.message));
    const refused = await refusal(req, op, caller, parts, permissions);
    if (refused) return send(res, refused);
    const digest = op.service === 's3' ? checksumRefusal(req.headers, body) : undefined;
    if (digest) return send(res, awsError('s3', digest.kind, digest.message));
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
    const answer = await apply(req, body, op, parts.path);
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

  const server = loopbackOnly(
    createServer((req, res) => {
      serve(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const path = target.pathname === '/' ? '' : target.pathname;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    async close() {
      await closeAgent();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
