export { createHttpHandler } from './http.ts';
export { HTTP_ROUTE_TABLE, type HttpRoute } from './http-routes.ts';
export { createSweepHandler } from './sweep.ts';
export { createWorkerHandler } from './worker.ts';
export { createWebSocketHandler, type WebSocketEvent, type WebSocketResult } from './ws.ts';
