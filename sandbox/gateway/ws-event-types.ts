/** Who is on the other end of a WebSocket connection. */
export interface WebSocketIdentity {
  sourceIp: string;
  /** Present when the client sent a User-Agent header. */
  userAgent?: string;
}

/** The `requestContext` every WebSocket event carries. */
export interface WebSocketRequestContext {
  routeKey: string;
  eventType: 'CONNECT' | 'MESSAGE' | 'DISCONNECT';
  extendedRequestId: string;
  requestTime: string;
  messageDirection: 'IN';
  stage: string;
  connectedAt: number;
  requestTimeEpoch: number;
  identity: WebSocketIdentity;
  requestId: string;
  domainName: string;
  connectionId: string;
  apiId: string;
  /** The `$connect` authoriser's `principalId` and context, when the API has one. */
  authorizer?: Record<string, unknown>;
}

/** The `$connect` event. */
export interface WebSocketConnectEvent {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  /** Absent when the URL has no query string. */
  queryStringParameters?: Record<string, string>;
  multiValueQueryStringParameters?: Record<string, string[]>;
  stageVariables: Record<string, string>;
  requestContext: WebSocketRequestContext & { eventType: 'CONNECT' };
  isBase64Encoded: false;
  body: null;
}

/** The REQUEST event a `$connect` Lambda authoriser receives. */
export interface WebSocketAuthorizerEvent extends WebSocketConnectEvent {
  type: 'REQUEST';
  methodArn: string;
}

/** A frame from the client, routed to `$default` or an action. */
export interface WebSocketMessageEvent {
  requestContext: WebSocketRequestContext & { eventType: 'MESSAGE'; messageId: string };
  body: string;
  isBase64Encoded: false;
}

/** The `$disconnect` event (best effort, as on AWS). */
export interface WebSocketDisconnectEvent {
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  requestContext: WebSocketRequestContext & {
    eventType: 'DISCONNECT';
    disconnectStatusCode: number;
    disconnectReason: string;
  };
  isBase64Encoded: false;
}

/** Any event the WebSocket API hands its handler. */
export type WebSocketEvent = WebSocketConnectEvent | WebSocketMessageEvent | WebSocketDisconnectEvent;
