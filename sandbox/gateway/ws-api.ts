import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { createLambdaContext } from '../lambda-context.ts';
import { awsId, hostOf, sourceIp, splitTarget } from './request-info.ts';
import type { ApiIdentity, WebSocketApiOptions } from './types.ts';
import { authorizeConnect } from './ws-authorize.ts';
import { type Connection, ConnectionRegistry } from './ws-connections.ts';
import type { WebSocketEvent } from './ws-event-types.ts';
import { type ConnectionFacts, connectEvent, disconnectEvent, messageEvent } from './ws-events.ts';
import { createRouteSelector, frameText, refuseUpgrade, routeResponse } from './ws-frames.ts';

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

/** Builds the WebSocket API; limits are validated here, not on the first connection. */
export function createWebSocketApi(options: WebSocketApiOptions, api: ApiIdentity): WebSocketApi {
  const path = options.path ?? '/ws';
  const selectRoute = createRouteSelector(options.routes, options.routeSelectionKey ?? 'action');
  const limits = {
    idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs ?? 600_000),
    maxConnectionMs: positive('maxConnectionMs', options.maxConnectionMs ?? 7_200_000),
  };
  const maxPayload = positive('maxMessageBytes', options.maxMessageBytes ?? 131_072);
  // ws closes with 1009 by itself when a message is over maxPayload.
  const wss = new WebSocketServer({ noServer: true, maxPayload });
  const registry = new ConnectionRegistry();

  const invoke = (event: WebSocketEvent) =>
    options.handler(
      event,
      createLambdaContext({
        functionName: options.functionName ?? 'ws',
        timeoutMs: 29_000,
        region: api.region,
        accountId: api.accountId,
      }),
    );

  async function onMessage({ facts, socket }: Connection, body: string): Promise<void> {
    const event = messageEvent(facts, api, selectRoute(body), body);
    try {
      const reply = routeResponse(await invoke(event));
      if (reply !== undefined && socket.readyState === WebSocket.OPEN) socket.send(reply);
    } catch (error) {
      console.error(`[gateway] WebSocket ${event.requestContext.routeKey} failed:`, error);
      if (socket.readyState !== WebSocket.OPEN) return;
      const { connectionId, requestId } = event.requestContext;
      socket.send(JSON.stringify({ message: 'Internal server error', connectionId, requestId }));
    }
  }

  async function onClose(facts: ConnectionFacts, code: number, reason: string): Promise<void> {
    try {
      await invoke(disconnectEvent(facts, api, code, reason));
    } catch (error) {
      console.error('[gateway] WebSocket $disconnect failed:', error);
    }
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
      const authorizer = await authorizeConnect(options.authorizer, event, api);
      if (!authorizer) return refuseUpgrade(socket, 403);
      facts.authorizer = authorizer.context;
      event.requestContext.authorizer = { ...authorizer.context, integrationLatency: authorizer.latencyMs };
    }
    const result = await invoke(event);
    const status =
      typeof result === 'object' && typeof result.statusCode === 'number' ? result.statusCode : 200;
    if (status < 200 || status > 299) return refuseUpgrade(socket, status);
    if (socket.destroyed) return void onClose(facts, 1006, 'Client left during $connect');
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws, facts));
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
    },
  };
}
