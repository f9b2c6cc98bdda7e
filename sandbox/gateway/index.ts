export {
  type FunctionUrlOptions,
  STREAMED_RESPONSE_MAX_BYTES,
  type StreamingHandler,
} from './function-url.ts';
export { startGateway } from './server.ts';
export type {
  ApiIdentity,
  Gateway,
  GatewayOptions,
  HttpApiOptions,
  HttpAuthorizer,
  HttpHandler,
  WebSocketApiOptions,
  WebSocketAuthorizer,
  WebSocketHandler,
  WebSocketResult,
} from './types.ts';
export { lambdaPolicyAuthorizer } from './ws-authorize.ts';
export type {
  WebSocketAuthorizerEvent,
  WebSocketConnectEvent,
  WebSocketDisconnectEvent,
  WebSocketEvent,
  WebSocketIdentity,
  WebSocketMessageEvent,
  WebSocketRequestContext,
} from './ws-event-types.ts';
