import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AwsServiceError } from '../errors/index.ts';

/** A whole answer of a service. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One POST of a JSON protocol call, signed and ready. */
export interface Post {
  url: URL;
  agent: Agent;
  headers: Record<string, string | number>;
  body: string;
  /** The service and operation, named in a timeout's message. */
  service: string;
  operation: string;
  timeoutMs: number;
}

/** Sends one POST and reads its whole answer; a whole-attempt timeout fails it as `TimeoutError`. */
export function post({ url, agent, headers, body, service, operation, timeoutMs }: Post): Promise<Answer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      {
        agent,
        method: 'POST',
        hostname: url.hostname,
        port: url.port || undefined,
        path: url.pathname,
        headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    // The whole attempt, connection included (a socket timeout starts only once connected).
    const timer = setTimeout(() => {
      const timeout = new Error(`${service} did not answer ${operation} within ${timeoutMs} ms`);
      timeout.name = 'TimeoutError';
      request.destroy(timeout);
    }, timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', reject);
    request.end(body);
  });
}

/** The error of a refused call, from its answer (`__type` is `namespace#Name`). */
export function serviceError(service: string, answer: Answer, attempts: number): AwsServiceError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's page): the status names it.
  }
  const { __type, message, Message, ...fields } = body;
  const type = String(__type ?? answer.headers['x-amzn-errortype'] ?? '');
  const name =
    type.split('#').pop()?.split(':')[0] || (answer.status >= 500 ? 'InternalServerError' : 'UnknownError');
  const requestId = answer.headers['x-amzn-requestid'];
  return new AwsServiceError(
    name,
    String(message ?? Message ?? `${service} answered ${answer.status}`),
    {
      httpStatusCode: answer.status,
      requestId: typeof requestId === 'string' ? requestId : undefined,
      attempts,
    },
    fields,
  );
}

/** A request body: binary values (DynamoDB's `B`, `BS`) in base64, as the JSON protocols have them. */
export function toJson(wire: Record<string, unknown>): string {
  return JSON.stringify(wire, function (this: Record<string, unknown>, key, value: unknown) {
    const raw = this[key];
    return raw instanceof Uint8Array
      ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
      : value;
  });
}
