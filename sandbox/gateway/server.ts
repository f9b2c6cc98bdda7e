import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FOREIGN_HOST_MESSAGE, HostCheck } from '../host-check.ts';
import { createFunctionUrl } from './function-url.ts';
import { createHttpApi } from './http-api.ts';
import { gatewayError, writeResponse } from './http-response.ts';
import { SETTLE_MS } from './lambda-invoke.ts';
import { createManagementApi } from './management-api.ts';
import { awsId } from './request-info.ts';
import type { ApiIdentity, Gateway, GatewayOptions } from './types.ts';
import { createWebSocketApi } from './ws-api.ts';
import { ConnectionRegistry } from './ws-connections.ts';
import { refuseUpgrade } from './ws-frames.ts';

/**
 * Starts the local API Gateway: the HTTP API, the WebSocket API and its `@connections`
 * management endpoint on one port, feeding the same Lambda handlers with the same events as AWS.
 * Options are validated before the port is opened.
 *
 * @example
 * const gateway = await startGateway({
 *   port: 0,
 *   http: { routes: ['POST /api/chat', 'GET /api/sessions/{id}'], handler: http.handler },
 *   websocket: { routes: ['join', 'send'], handler: ws.handler },
 * });
 * const client = new ApiGatewayManagementApiClient({ endpoint: gateway.managementEndpoint, region, credentials });
 * await gateway.close();
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const host = options.host ?? '127.0.0.1';
  const api: ApiIdentity = {
    apiId: options.apiId ?? 'sandbox00',
    accountId: options.accountId ?? '000000000000',
    region: options.region ?? 'us-east-1',
    stage: options.stage ?? 'local',
  };
  const httpApi = options.http ? createHttpApi(options.http, api) : undefined;
  const wsApi = options.websocket ? createWebSocketApi(options.websocket, api) : undefined;
  const registry = wsApi?.registry ?? new ConnectionRegistry();
  const management = createManagementApi(registry, api.stage);
  const functionUrls = (options.functionUrls ?? []).map((url) => createFunctionUrl(url, api));

  const hosts = new HostCheck([host, ...(options.allowHosts ?? [])]);
  const sameHostOrigin = options.sameHostOrigin ?? [];
  /** A foreign `Host` (or, under `sameHostOrigin`, `Origin`) is refused before anything runs. */
  const foreign = (req: IncomingMessage) => {
    if (!hosts.host(req)) return true;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    return sameHostOrigin.some((prefix) => path.startsWith(prefix)) && !hosts.origin(req);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (foreign(req)) {
      req.resume();
      writeResponse(res, gatewayError(403, FOREIGN_HOST_MESSAGE), awsId());
      return;
    }
    if (management(req, res)) return;
    if (functionUrls.some((serve) => serve(req, res))) return;
    // The sandbox's own pages, and its own POST endpoints under /sandbox/ (the OTLP receiver).
    const own = req.method === 'GET' || (req.method === 'POST' && (req.url ?? '').startsWith('/sandbox/'));
    if (own && options.static?.(req, res)) return;
    if (httpApi) {
      httpApi(req, res).catch((error: unknown) => {
        // A client that went away (or was cut off for being too slow) needs no answer.
        if (req.destroyed || res.destroyed) return;
        console.error('[gateway] request failed:', error);
        writeResponse(res, gatewayError(500, 'Internal Server Error'), awsId());
      });
      return;
    }
    req.resume();
    writeResponse(res, gatewayError(404, 'Not Found'), awsId());
  };

  // Node checks these deadlines every `connectionsCheckingInterval`: often enough for short test values.
  const readTimeoutMs = options.readTimeoutMs ?? 10_000;
  const server = createServer(
    {
      headersTimeout: readTimeoutMs,
      requestTimeout: readTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(readTimeoutMs / 4))),
    },
    onRequest,
  );
  server.on('upgrade', (req, socket, head) => {
    if (foreign(req)) refuseUpgrade(socket, 403, FOREIGN_HOST_MESSAGE);
    else if (wsApi) wsApi.handleUpgrade(req, socket, head);
    else refuseUpgrade(socket, 404, 'Not Found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  const wsPath = !wsApi || wsApi.path === '*' ? '/' : wsApi.path;
  return {
    url,
    wsUrl: `ws://${host}:${port}${wsPath}`,
    managementEndpoint: `${url}/${api.stage}`,
    port,
    connections: () => registry.ids(),
    async close() {
      await wsApi?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all([httpApi?.settle(SETTLE_MS), ...functionUrls.map((url) => url.settle(SETTLE_MS))]);
    },
  };
}
