import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** A response ready to write. */
export interface HttpResponse {
  statusCode: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

/** A JSON error body in API Gateway's own words (`{"message":"Not Found"}`). */
export function gatewayError(
  statusCode: number,
  message: string,
  headers: OutgoingHttpHeaders = {},
): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify({ message })),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Maps a payload 2.0 handler result the way API Gateway does: an object with `statusCode` is a
 * structured response; anything else is a 200 JSON body (a string is sent as it is).
 * Throws on a structured response API Gateway would reject, which the caller turns into a 500.
 */
export function mapHttpResult(result: unknown): HttpResponse {
  if (!isRecord(result) || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : result === undefined ? '' : JSON.stringify(result);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) };
  }
  const { statusCode, headers, body, isBase64Encoded, cookies } = result;
  if (
    typeof statusCode !== 'number' ||
    !Number.isInteger(statusCode) ||
    statusCode < 100 ||
    statusCode > 599
  ) {
    throw new Error(`Malformed Lambda proxy response: statusCode ${String(statusCode)}`);
  }
  if (body !== undefined && body !== null && typeof body !== 'string') {
    throw new Error('Malformed Lambda proxy response: body must be a string');
  }
  const out: OutgoingHttpHeaders = {};
  if (isRecord(headers)) {
    for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = String(value);
  }
  if (Array.isArray(cookies) && cookies.length > 0) out['set-cookie'] = cookies.map(String);
  const text = body ?? '';
  return {
    statusCode,
    headers: out,
    body: isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text),
  };
}

/** Writes a response with the request id header API Gateway adds. */
export function writeResponse(res: ServerResponse, response: HttpResponse, requestId: string): void {
  if (res.headersSent) return;
  res.writeHead(response.statusCode, {
    ...response.headers,
    'content-length': response.body.length,
    'apigw-requestid': requestId,
  });
  res.end(response.body);
}
