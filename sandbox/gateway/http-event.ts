import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import {
  awsId,
  clfTime,
  headerPairs,
  hostOf,
  queryValues,
  sourceIp,
  splitTarget,
  traceId,
} from './request-info.ts';
import type { RouteMatch } from './routes.ts';
import type { ApiIdentity } from './types.ts';

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|graphql)\b|[^;]*\+(json|xml)\b)/i;

/** Lower-cased names, repeated headers joined with commas, cookies moved out: what payload 2.0 does. */
function httpHeaders(
  req: IncomingMessage,
  now: number,
): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [name, value] of headerPairs(req)) {
    const key = name.toLowerCase();
    if (key === 'cookie') cookies.push(...value.split(/;\s*/).filter(Boolean));
    else headers[key] = key in headers ? `${headers[key]},${value}` : value;
  }
  const port = String(req.socket.localPort ?? '');
  headers['x-amzn-trace-id'] ??= traceId(now);
  headers['x-forwarded-for'] ??= sourceIp(req);
  headers['x-forwarded-port'] ??= port;
  headers['x-forwarded-proto'] ??= 'http';
  return { headers, cookies };
}

function encodeBody(
  body: Buffer,
  contentType: string | undefined,
): { body: string; isBase64Encoded: boolean } {
  const text = contentType === undefined || TEXT_TYPES.test(contentType);
  return text
    ? { body: body.toString('utf8'), isBase64Encoded: false }
    : { body: body.toString('base64'), isBase64Encoded: true };
}

/** Builds the HTTP API payload 2.0 event for a request that matched a route. */
export function buildHttpEvent(
  req: IncomingMessage,
  body: Buffer,
  match: RouteMatch,
  api: ApiIdentity,
): APIGatewayProxyEventV2 {
  const now = Date.now();
  const { rawPath, rawQueryString } = splitTarget(req.url);
  const { headers, cookies } = httpHeaders(req, now);
  const domainName = hostOf(req);
  const query = queryValues(rawQueryString);
  const encoded = body.length > 0 ? encodeBody(body, headers['content-type']) : undefined;
  return {
    version: '2.0',
    routeKey: match.route.key,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(query.size > 0
      ? { queryStringParameters: Object.fromEntries([...query].map(([k, v]) => [k, v.join(',')])) }
      : {}),
    requestContext: {
      accountId: api.accountId,
      apiId: api.apiId,
      domainName,
      domainPrefix: domainName.split(/[.:]/)[0] ?? domainName,
      http: {
        method: req.method ?? 'GET',
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: sourceIp(req),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: awsId(),
      routeKey: match.route.key,
      stage: '$default',
      time: clfTime(now),
      timeEpoch: now,
    },
    ...(encoded ? { body: encoded.body } : {}),
    ...(match.pathParameters ? { pathParameters: match.pathParameters } : {}),
    isBase64Encoded: encoded?.isBase64Encoded ?? false,
  };
}

/** The REQUEST event an HTTP API Lambda authoriser (payload 2.0) receives for the same request. */
export function buildAuthorizerEvent(
  event: APIGatewayProxyEventV2,
  api: ApiIdentity,
): APIGatewayRequestAuthorizerEventV2 {
  const { body: _body, isBase64Encoded: _encoded, version: _version, ...request } = event;
  const { method, path } = event.requestContext.http;
  const authorization = event.headers.authorization;
  return {
    version: '2.0',
    type: 'REQUEST',
    routeArn: `arn:aws:execute-api:${api.region}:${api.accountId}:${api.apiId}/$default/${method}${path}`,
    identitySource: authorization ? [authorization] : [],
    ...request,
    cookies: event.cookies ?? [],
  };
}
