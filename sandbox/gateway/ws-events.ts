import type { IncomingMessage } from 'node:http';
import { awsId, clfTime, headerPairs, queryValues, splitTarget, traceId } from './request-info.ts';
import type { ApiIdentity } from './types.ts';
import type {
  WebSocketConnectEvent,
  WebSocketDisconnectEvent,
  WebSocketIdentity,
  WebSocketMessageEvent,
  WebSocketRequestContext,
} from './ws-event-types.ts';

/** What every event of one connection repeats. */
export interface ConnectionFacts {
  connectionId: string;
  connectedAt: number;
  domainName: string;
  identity: WebSocketIdentity;
  authorizer?: Record<string, unknown>;
}

function requestContext<T extends WebSocketRequestContext['eventType']>(
  facts: ConnectionFacts,
  api: ApiIdentity,
  routeKey: string,
  eventType: T,
): WebSocketRequestContext & { eventType: T } {
  const now = Date.now();
  const requestId = awsId();
  return {
    routeKey,
    eventType,
    extendedRequestId: requestId,
    requestTime: clfTime(now),
    messageDirection: 'IN',
    stage: api.stage,
    connectedAt: facts.connectedAt,
    requestTimeEpoch: now,
    identity: facts.identity,
    requestId,
    domainName: facts.domainName,
    connectionId: facts.connectionId,
    apiId: api.apiId,
    ...(facts.authorizer ? { authorizer: facts.authorizer } : {}),
  };
}

function multiValue(map: Map<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(map);
}

function lastValues(map: Map<string, string[]>): Record<string, string> {
  return Object.fromEntries([...map].map(([k, v]) => [k, v.at(-1) ?? '']));
}

/** `$connect`: headers keep the client's spelling, plus the forwarding headers API Gateway adds. */
export function connectEvent(
  req: IncomingMessage,
  facts: ConnectionFacts,
  api: ApiIdentity,
): WebSocketConnectEvent {
  const headers = new Map<string, string[]>();
  for (const [name, value] of headerPairs(req)) headers.set(name, [...(headers.get(name) ?? []), value]);
  const add = (name: string, value: string) => {
    if (![...headers.keys()].some((k) => k.toLowerCase() === name.toLowerCase())) headers.set(name, [value]);
  };
  add('X-Amzn-Trace-Id', traceId(facts.connectedAt));
  add('X-Forwarded-For', facts.identity.sourceIp);
  add('X-Forwarded-Port', String(req.socket.localPort ?? ''));
  add('X-Forwarded-Proto', 'http');
  const query = queryValues(splitTarget(req.url).rawQueryString);
  return {
    headers: lastValues(headers),
    multiValueHeaders: multiValue(headers),
    ...(query.size > 0
      ? { queryStringParameters: lastValues(query), multiValueQueryStringParameters: multiValue(query) }
      : {}),
    stageVariables: {},
    requestContext: requestContext(facts, api, '$connect', 'CONNECT'),
    isBase64Encoded: false,
    body: null,
  };
}

/** A frame from the client. */
export function messageEvent(
  facts: ConnectionFacts,
  api: ApiIdentity,
  routeKey: string,
  body: string,
): WebSocketMessageEvent {
  return {
    requestContext: { ...requestContext(facts, api, routeKey, 'MESSAGE'), messageId: awsId() },
    body,
    isBase64Encoded: false,
  };
}

/** `$disconnect`: AWS sends these placeholder headers rather than the client's. */
export function disconnectEvent(
  facts: ConnectionFacts,
  api: ApiIdentity,
  statusCode: number,
  reason: string,
): WebSocketDisconnectEvent {
  const headers: Record<string, string> = {
    Host: facts.domainName,
    'x-api-key': '',
    'X-Forwarded-For': '',
    'x-restapi': '',
  };
  return {
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    requestContext: {
      ...requestContext(facts, api, '$disconnect', 'DISCONNECT'),
      disconnectStatusCode: statusCode,
      disconnectReason: reason,
    },
    isBase64Encoded: false,
  };
}
