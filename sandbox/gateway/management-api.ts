import type { IncomingMessage, ServerResponse } from 'node:http';
import { gatewayError, type HttpResponse, writeResponse } from './http-response.ts';
import { readBody } from './read-body.ts';
import { awsId, splitTarget } from './request-info.ts';
import type { ConnectionRegistry } from './ws-connections.ts';

/** PostToConnection's limit, the same as an inbound message's. */
const MAX_POST_BYTES = 128 * 1024;
const PATH = /^(?:\/([^/]+))?\/@connections\/([^/]+)\/?$/;

/** Serves a management request; returns false when the path is not a management path. */
export type ManagementApi = (req: IncomingMessage, res: ServerResponse) => boolean;

function awsError(statusCode: number, errorType: string, message: string): HttpResponse {
  return gatewayError(statusCode, message, { 'x-amzn-errortype': errorType });
}

function json(statusCode: number, value: unknown): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(value)),
  };
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const empty = (statusCode: number): HttpResponse => ({ statusCode, headers: {}, body: Buffer.alloc(0) });

/** A SigV4 `Authorization` header, as the SDK signs a request: the scheme and a credential scope. */
const SIGV4 = /^AWS4-HMAC-SHA256\s+Credential=\S/;

/**
 * The `@connections` API that `@aws-sdk/client-apigatewaymanagementapi` calls, at
 * `/@connections/{id}` or `/{stage}/@connections/{id}`. A request must be signed (SigV4): one
 * without a signature gets API Gateway's 403 `Missing Authentication Token`. The signature itself
 * is not checked here (the front before the gateway knows each caller by its key).
 */
export function createManagementApi(registry: ConnectionRegistry, stage: string): ManagementApi {
  async function serve(req: IncomingMessage, id: string): Promise<HttpResponse> {
    const read = await readBody(req, MAX_POST_BYTES);
    const connection = registry.get(id);
    if (req.method === 'POST' && !read.ok) {
      return awsError(413, 'PayloadTooLargeException', 'Message too long');
    }
    if (!['POST', 'GET', 'DELETE'].includes(req.method ?? '')) return gatewayError(404, 'Not Found');
    if (!connection) return awsError(410, 'GoneException', `Connection ${id} is gone`);
    const { socket, facts } = connection;
    if (req.method === 'GET') {
      // The SDK reads these JSON names (see its schema's jsonName traits), timestamps as ISO 8601.
      return json(200, {
        connectedAt: new Date(facts.connectedAt).toISOString(),
        identity: { sourceIp: facts.identity.sourceIp, userAgent: facts.identity.userAgent ?? '' },
        lastActiveAt: new Date(connection.lastActiveAt).toISOString(),
      });
    }
    if (req.method === 'DELETE') {
      socket.close(1000);
      return empty(204);
    }
    const data = read.ok ? read.body.toString('utf8') : '';
    // Answer after the frame is handed to the kernel, so a caller's later posts keep their order.
    await new Promise<void>((resolve, reject) =>
      socket.send(data, (error) => (error ? reject(error) : resolve())),
    );
    return empty(200);
  }

  return (req, res) => {
    const match = PATH.exec(splitTarget(req.url).rawPath);
    if (!match?.[2]) return false;
    const requestId = awsId();
    const headers = { 'x-amzn-requestid': requestId };
    const answer = !SIGV4.test(req.headers.authorization ?? '')
      ? Promise.resolve(awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token'))
      : match[1] !== undefined && decode(match[1]) !== stage
        ? Promise.resolve(awsError(403, 'ForbiddenException', 'Forbidden'))
        : serve(req, decode(match[2]));
    answer
      .catch(() => awsError(410, 'GoneException', 'Connection is gone'))
      .then((response) =>
        writeResponse(res, { ...response, headers: { ...response.headers, ...headers } }, requestId),
      );
    return true;
  };
}
