import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { headerOf } from '../../lib/auth/index.ts';
import { createLambdaContext } from '../lambda-context.ts';
import { DEFAULT_CONCURRENCY, InvocationPool, invokeLambda, SETTLE_MS } from './lambda-invoke.ts';
import { awsId, hostOf, sourceIp, splitTarget } from './request-info.ts';
import type { ApiIdentity, WebSocketApiOptions } from './types.ts';
import { authorizeConnect } from './ws-authorize.ts';
import { type Connection, ConnectionRegistry } from './ws-connections.ts';
import type { WebSocketConnectEvent, WebSocketEvent } from './ws-event-types.ts';
import { type ConnectionFacts, connectEvent, disconnectEvent, messageEvent } from './ws-events.ts';
import { limitFrameSize } from './ws-frame-limit.ts';
import { createRouteSelector, frameText, gatewayFrame, refuseUpgrade, routeResponse } from './ws-frames.ts';

/** The WebSocket half of the gateway. */
export interface WebSocketApi {
  path: string;
  registry: ConnectionRegistry;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new Error(`websocket.${name} must be a positive number`);
  return value;
}

/** The headers and query parameters an identity source names; any other form is refused at start. */
function identityChecks(sources: readonly string[]): ((event: WebSocketConnectEvent) => boolean)[] {
  return sources.map((source) => {
    const match = /^route\.request\.(header|querystring)\.([A-Za-z0-9._-]+)$/.exec(source);
    if (!match) throw new Error(`websocket.identitySource: the sandbox cannot check "${source}"`);
    const [, where, name] = match as unknown as [string, 'header' | 'querystring', string];
    return (event) => {
      const value =
        where === 'header' ? headerOf(event.headers, name) : event.queryStringParameters?.[name as string];
      return typeof value === 'string' && value.trim() !== '';
    };
  });
}

/** Builds the WebSocket API; limits are validated here, not on the first connection. */
export function createWebSocketApi(options: WebSocketApiOptions, api: ApiIdentity): WebSocketApi {
  const path = options.path ?? '/ws';
  const identity = identityChecks(options.identitySource ?? []);
  const selectRoute = createRouteSelector(options.routes, options.routeSelectionKey ?? 'action');
  const limits = {
    idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs ?? 600_000),
    maxConnectionMs: positive('maxConnectionMs', options.maxConnectionMs ?? 7_200_000),
  };
  const maxPayload = positive('maxMessageBytes', options.maxMessageBytes ?? 131_072);
  const maxFrameBytes = positive('maxFrameBytes', options.maxFrameBytes ?? 32_768);
  const timeoutMs = positive('timeoutMs', options.timeoutMs ?? 29_000);
  // ws closes with 1009 by itself when a message is over maxPayload; limitFrameSize does so per frame.
  // The subprotocol the `$connect` integration chose, by request: API Gateway puts the integration's
  // `Sec-WebSocket-Protocol` header in the handshake, and none when it sent none (ws would pick the
  // client's first by itself).
  const chosenProtocol = new WeakMap<IncomingMessage, string>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload,
    handleProtocols: (_offered, req) => chosenProtocol.get(req) ?? false,
  });
  const registry = new ConnectionRegistry();
  const pool = new InvocationPool(options.concurrency ?? DEFAULT_CONCURRENCY);
  // `$disconnect` takes no slot of `pool`: it cannot be refused (the connection is gone) and must
  // clean up. Its own pool never refuses; it only tells `close` what still runs.
  const disconnects = new InvocationPool(Number.POSITIVE_INFINITY);

  const invoke = (event: WebSocketEvent) =>
    invokeLambda(
      options.handler,
      event,
      createLambdaContext({
        functionName: options.functionName ?? 'ws',
        timeoutMs,
        region: api.region,
        accountId: api.accountId,
      }),
      timeoutMs,
      event.requestContext.routeKey === '$disconnect' ? disconnects : pool,
    );

  async function onMessage({ facts, socket }: Connection, body: string): Promise<void> {
    const event = messageEvent(facts, api, selectRoute(body), body);
    const outcome = await invoke(event);
    if (outcome.kind === 'failed') {
      console.error(`[gateway] WebSocket ${event.requestContext.routeKey} failed:`, outcome.error);
    }
    if (socket.readyState !== WebSocket.OPEN) return;
    const { connectionId, requestId } = event.requestContext;
    // A failed, timed-out or throttled route answers the caller with API Gateway's error frame; the
    // connection stays. Throttled, nothing ran: the client may send the frame again.
    if (outcome.kind === 'throttled') socket.send(gatewayFrame('Too Many Requests', connectionId, requestId));
    else if (outcome.kind === 'timeout')
      socket.send(gatewayFrame('Endpoint request timed out', connectionId, requestId));
    else if (outcome.kind === 'failed')
      socket.send(gatewayFrame('Internal server error', connectionId, requestId));
    else {
      const reply = routeResponse(outcome.result);
      if (reply !== undefined) socket.send(reply);
    }
  }

  async function onClose(facts: ConnectionFacts, code: number, reason: string): Promise<void> {
    const outcome = await invoke(disconnectEvent(facts, api, code, reason));
    if (outcome.kind !== 'ok') console.error(`[gateway] WebSocket $disconnect ${outcome.kind}:`, outcome);
  }

  function accept(socket: WebSocket, facts: ConnectionFacts): void {
    socket.on('error', (error) => console.error(`[gateway] WebSocket ${facts.connectionId}:`, error.message));
    const { connection, touch } = registry.add(facts, socket, limits, (code, reason) =>
      onClose(facts, code, reason),
    );
    socket.on('ping', touch);
    socket.on('message', (data, isBinary) => {
      // API Gateway does not take binary frames and disconnects with 1003.
      if (isBinary) return socket.close(1003, 'Binary frames are not supported');
      touch();
      void onMessage(connection, frameText(data));
    });
  }

  async function admit(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const userAgent = req.headers['user-agent'];
    const facts: ConnectionFacts = {
      connectionId: awsId(),
      connectedAt: Date.now(),
      domainName: hostOf(req),
      identity: { sourceIp: sourceIp(req), ...(userAgent ? { userAgent } : {}) },
    };
    const event = connectEvent(req, facts, api);
    if (options.authorizer) {
      // API Gateway's own check of the identity source: the authoriser never sees such a request.
      if (!identity.every((present) => present(event))) return refuseUpgrade(socket, 401, 'Unauthorized');
      let authorizer: Awaited<ReturnType<typeof authorizeConnect>>;
      try {
        authorizer = await authorizeConnect(options.authorizer, event, api);
      } catch (error) {
        // A Lambda authoriser that fails with exactly "Unauthorized" is API Gateway's 401.
        if (error instanceof Error && error.message === 'Unauthorized') return refuseUpgrade(socket, 401);
        throw error;
      }
      if (!authorizer) return refuseUpgrade(socket, 403);
      facts.authorizer = authorizer.context;
      event.requestContext.authorizer = { ...authorizer.context, integrationLatency: authorizer.latencyMs };
    }
    const outcome = await invoke(event);
    if (outcome.kind === 'throttled') return refuseUpgrade(socket, 429, 'Too Many Requests');
    if (outcome.kind === 'timeout') return refuseUpgrade(socket, 504, 'Endpoint request timed out');
    if (outcome.kind === 'failed') throw outcome.error;
    const result = outcome.result;
    const status =
      typeof result === 'object' && typeof result.statusCode === 'number' ? result.statusCode : 200;
    if (status < 200 || status > 299) return refuseUpgrade(socket, status);
    const headers = typeof result === 'object' ? result.headers : undefined;
    const protocol = headerOf(headers as Record<string, string> | undefined, 'sec-websocket-protocol');
    if (protocol) chosenProtocol.set(req, protocol);
    if (socket.destroyed) return void onClose(facts, 1006, 'Client left during $connect');
    wss.handleUpgrade(req, socket, head, (ws) => {
      limitFrameSize(ws, maxFrameBytes);
      accept(ws, facts);
    });
  }

  return {
    path,
    registry,
    handleUpgrade(req, socket, head) {
      socket.on('error', () => {});
      if (path !== '*' && splitTarget(req.url).rawPath !== path)
        return refuseUpgrade(socket, 404, 'Not Found');
      admit(req, socket, head).catch((error: unknown) => {
        console.error('[gateway] WebSocket $connect failed:', error);
        refuseUpgrade(socket, 500, 'Internal server error');
      });
    },
    async close() {
      await registry.closeAll();
      wss.close();
      // Routes and `$disconnect`s still running finish before the services they call are stopped.
      await Promise.all([pool.whenIdle(SETTLE_MS), disconnects.whenIdle(SETTLE_MS)]);
    },
  };
}
