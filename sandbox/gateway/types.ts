import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyResultV2,
  APIGatewayRequestAuthorizerEventV2,
  Context,
} from 'aws-lambda';
import type { CorsConfig } from '../../lib/contract/index.ts';
import type { FunctionUrlOptions } from './function-url.ts';
import type { WebSocketAuthorizerEvent, WebSocketEvent } from './ws-event-types.ts';

/** An HTTP API (payload format 2.0) Lambda handler. */
export type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler declared `Promise<void>` must fit.
  APIGatewayProxyResultV2 | object | undefined | void
>;

/**
 * A Lambda authoriser (simple responses): the context it returns lands in
 * `requestContext.authorizer.lambda`; `null` answers 403.
 */
export type HttpAuthorizer = (
  event: APIGatewayRequestAuthorizerEventV2,
) => Promise<Record<string, unknown> | null>;

/** The HTTP API half of the gateway. */
export interface HttpApiOptions {
  /** Route keys as API Gateway spells them: `'POST /api/chat'`, `'GET /api/sessions/{id}'`, `'ANY /{proxy+}'`, `'$default'`. */
  routes: string[];
  handler: HttpHandler;
  authorizer?: HttpAuthorizer;
  /**
   * A JWT authoriser, as `HttpJwtAuthorizer` on `$request.header.Authorization`: a request without the
   * header is answered `401 Unauthorized` before anything runs; `verify` gets the token (alone or after
   * `Bearer `) and throws `InvalidTokenError` to refuse it (401 too); the claims it returns land in
   * `requestContext.authorizer.jwt.claims`, every value a string, as AWS hands them on. Not with `authorizer`.
   */
  jwtAuthorizer?: { verify(token: string): Promise<Record<string, unknown>> };
  /**
   * The headers the authoriser's identity source names (lower case, e.g. `['authorization']`): a
   * request that lacks one, or sends it empty, is answered `401 Unauthorized` and the authoriser is
   * never called, as API Gateway does. Default none.
   */
  identityHeaders?: string[];
  /** Integration timeout; API Gateway answers 503 after it. Default 30 000, HTTP API's (and its maximum). */
  timeoutMs?: number;
  /**
   * How many invocations of the function run at once; past it a request is answered
   * `429 {"message":"Too Many Requests"}`, as API Gateway's throttling does, and the function never
   * sees it. Default 64.
   */
  concurrency?: number;
  /** The API's CORS configuration: the gateway answers preflight and adds the headers by it. Default none. */
  cors?: CorsConfig;
  /** Default 'http'. */
  functionName?: string;
}

/** What a WebSocket route integration may answer. */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler declared `Promise<void>` must fit.
export type WebSocketResult = APIGatewayProxyResultV2 | undefined | void;

/** The one Lambda behind every WebSocket route, told apart by `requestContext.routeKey`. */
export type WebSocketHandler = (event: WebSocketEvent, context: Context) => Promise<WebSocketResult>;

/**
 * A `$connect` Lambda authoriser: the context it returns is on every later event; `null` answers 403;
 * failing with the message `Unauthorized` answers 401, as API Gateway does ({@link lambdaPolicyAuthorizer}
 * adapts a real authoriser handler, which answers with an IAM policy).
 */
export type WebSocketAuthorizer = (
  event: WebSocketAuthorizerEvent,
) => Promise<Record<string, unknown> | null>;

/** The WebSocket API half of the gateway. */
export interface WebSocketApiOptions {
  handler: WebSocketHandler;
  /** Action names with their own route; any other frame goes to `$default`. */
  routes: string[];
  /** The JSON field of `$request.body.<key>` that names the route. Default 'action'. */
  routeSelectionKey?: string;
  /** Upgrade path; `'*'` accepts any. Default '/ws'. */
  path?: string;
  /** Default 600 000 (10 minutes), as on AWS. */
  idleTimeoutMs?: number;
  /** Default 7 200 000 (2 hours), as on AWS. */
  maxConnectionMs?: number;
  /** Default 131 072 (128 KB), as on AWS; a bigger message (its frames together) closes the socket with 1009. */
  maxMessageBytes?: number;
  /** Default 32 768 (32 KB), as on AWS; a bigger frame closes the socket with 1009. */
  maxFrameBytes?: number;
  /**
   * Integration timeout; after it the route fails and the caller gets an `Endpoint request timed out`
   * frame. Default 29 000, WebSocket API's (and its maximum).
   */
  timeoutMs?: number;
  /**
   * How many invocations of the function run at once (`$disconnect` aside); past it a frame is
   * answered `{"message": "Too Many Requests", …}` and a `$connect` refused with 429, as API Gateway's
   * throttling does, and the function never sees either. Default 64.
   */
  concurrency?: number;
  authorizer?: WebSocketAuthorizer;
  /**
   * The authoriser's identity source, as the stack names it (`route.request.header.<name>`,
   * `route.request.querystring.<name>`): a `$connect` that lacks one, or sends it empty, is refused
   * with 401 and the authoriser is not called, as API Gateway does. Default none.
   */
  identitySource?: readonly string[];
  /** Default 'ws'. */
  functionName?: string;
}

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /**
   * Names answered besides the loopback ones and `host`: a request whose `Host` names anything else
   * (any route, a WebSocket upgrade, a function URL) is answered 403, as a DNS-rebinding page's is.
   */
  allowHosts?: readonly string[];
  /**
   * Path prefixes (`/sandbox/`) that also refuse, with 403, a browser request whose `Origin` names
   * none of those hosts.
   */
  sameHostOrigin?: readonly string[];
  http?: HttpApiOptions;
  websocket?: WebSocketApiOptions;
  /** Lambda function URLs in RESPONSE_STREAM mode, each under a path prefix of this port. */
  functionUrls?: FunctionUrlOptions[];
  /** Consulted first for GET requests, and POST ones under `/sandbox/`; returns true when it answered. */
  static?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** The WebSocket API's stage, the first segment of the management endpoint. Default 'local'. */
  stage?: string;
  /** Default 'sandbox00'. */
  apiId?: string;
  /** Default '000000000000'. */
  accountId?: string;
  /** Default 'us-east-1'. */
  region?: string;
  /**
   * How long a client may take to send a request's headers and body; a slower one (headers or a
   * body dripped a byte at a time, a connection left half-open) is answered 408 and closed.
   * Default 10 000.
   */
  readTimeoutMs?: number;
}

/** A running gateway. */
export interface Gateway {
  /** `http://host:port` */
  url: string;
  /** `ws://host:port/ws` (or the configured path) */
  wsUrl: string;
  /** The endpoint to give `ApiGatewayManagementApiClient`: `http://host:port/<stage>`. */
  managementEndpoint: string;
  port: number;
  /** Ids of the open WebSocket connections. */
  connections(): string[];
  /** Closes every socket (firing `$disconnect`) and stops the server. */
  close(): Promise<void>;
}

/** Values every event of this gateway shares. */
export interface ApiIdentity {
  apiId: string;
  accountId: string;
  region: string;
  stage: string;
}
