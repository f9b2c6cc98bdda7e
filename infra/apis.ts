import { Duration } from 'aws-cdk-lib';
import {
  type CfnStage,
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  type IHttpRouteAuthorizer,
  type IHttpStage,
  type IWebSocketRouteAuthorizer,
  WebSocketApi,
  WebSocketStage,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer, WebSocketLambdaAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration, WebSocketLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { type CorsMethod, HTTP_API_CORS } from '../lib/contract/index.ts';
import type { StageThrottle, SwitchboardAuth } from './props.ts';
import {
  HTTP_ROUTES,
  splitHttpRoute,
  WEBSOCKET_IDENTITY_SOURCES,
  WEBSOCKET_ROUTES,
  type WebSocketTokenSource,
} from './routes.ts';

/** API Gateway's method names to CDK's enum; `*` is `ANY`. */
const CORS_METHODS: Record<CorsMethod, CorsHttpMethod> = {
  GET: CorsHttpMethod.GET,
  POST: CorsHttpMethod.POST,
  PUT: CorsHttpMethod.PUT,
  PATCH: CorsHttpMethod.PATCH,
  DELETE: CorsHttpMethod.DELETE,
  HEAD: CorsHttpMethod.HEAD,
  OPTIONS: CorsHttpMethod.OPTIONS,
  '*': CorsHttpMethod.ANY,
};

/**
 * The HTTP API on its `$default` stage (so paths carry no stage prefix), every route of
 * {@link HTTP_ROUTES} sent to one function. Preflight is answered by API Gateway, not the function,
 * by {@link HTTP_API_CORS}: the sandbox's gateway reads the same constant.
 */
export function createHttpApi(
  scope: Construct,
  handler: IFunction,
  authorizer?: IHttpRouteAuthorizer,
): HttpApi {
  const api = new HttpApi(scope, 'HttpApi', {
    description: 'Switchboard HTTP API',
    defaultAuthorizer: authorizer,
    corsPreflight: {
      allowOrigins: [...HTTP_API_CORS.allowOrigins],
      allowHeaders: [...HTTP_API_CORS.allowHeaders],
      allowMethods: HTTP_API_CORS.allowMethods.map((method) => CORS_METHODS[method]),
      ...(HTTP_API_CORS.exposeHeaders && { exposeHeaders: [...HTTP_API_CORS.exposeHeaders] }),
      ...(HTTP_API_CORS.maxAgeSeconds !== undefined && {
        maxAge: Duration.seconds(HTTP_API_CORS.maxAgeSeconds),
      }),
      ...(HTTP_API_CORS.allowCredentials !== undefined && {
        allowCredentials: HTTP_API_CORS.allowCredentials,
      }),
    },
  });
  const integration = new HttpLambdaIntegration('HttpIntegration', handler);
  for (const route of HTTP_ROUTES) {
    const { method, path } = splitHttpRoute(route);
    api.addRoutes({ path, methods: [HttpMethod[method]], integration });
  }
  return api;
}

/**
 * The WebSocket API. Routes are chosen by the frame's `action`; `$default` catches frames that are not
 * JSON or name no route. Every route but `$disconnect` (which has no caller left to answer) returns the
 * function's `body` to the sender.
 */
export function createWebSocketApi(
  scope: Construct,
  handler: IFunction,
  stageName: string,
  authorizer?: IWebSocketRouteAuthorizer,
): { api: WebSocketApi; stage: WebSocketStage } {
  const integration = new WebSocketLambdaIntegration('WebSocketIntegration', handler);
  const api = new WebSocketApi(scope, 'WebSocketApi', {
    description: 'Switchboard WebSocket API',
    routeSelectionExpression: '$request.body.action',
    // Only `$connect` is authorised: API Gateway keeps its result for the connection's later frames.
    connectRouteOptions: { integration, authorizer },
    disconnectRouteOptions: { integration },
    defaultRouteOptions: { integration, returnResponse: true },
  });
  for (const route of WEBSOCKET_ROUTES) {
    api.addRoute(route, { integration, returnResponse: true });
  }
  const stage = new WebSocketStage(scope, 'WebSocketStage', {
    webSocketApi: api,
    stageName,
    autoDeploy: true,
  });
  return { api, stage };
}

/**
 * Throttles every route of a stage (its `DefaultRouteSettings`); `false` leaves the account's limit.
 * Set on the stage's CloudFormation resource, since the HTTP API makes its `$default` stage itself.
 */
export function throttleStage(
  stage: IHttpStage | WebSocketStage | undefined,
  throttle: StageThrottle | false,
): void {
  if (!stage || throttle === false) return;
  const cfn = stage.node.defaultChild as CfnStage;
  cfn.defaultRouteSettings = {
    ...(cfn.defaultRouteSettings as CfnStage.RouteSettingsProperty | undefined),
    throttlingRateLimit: throttle.rateLimit,
    throttlingBurstLimit: throttle.burstLimit,
  };
}

/**
 * Built-in `auth`: API Gateway's JWT authoriser on the HTTP API (the token in `Authorization`, alone
 * or after `Bearer `), and on `$connect` the Lambda authoriser `fn` verifying the same token.
 *
 * The `$connect` authoriser's identity source is {@link WEBSOCKET_IDENTITY_SOURCES}' entry for
 * `tokenSource`: API Gateway answers 401 without calling the authoriser when a named source is missing,
 * so `'subprotocol'` and `'query'` refuse the other place before any function runs, and `'either'`
 * (the default) names a header every handshake has. The function answers 401 itself when no place
 * carries a token.
 */
export function builtInAuthorizers(
  auth: SwitchboardAuth,
  fn: IFunction,
  tokenSource: WebSocketTokenSource = 'either',
): { httpAuthorizer: IHttpRouteAuthorizer; webSocketAuthorizer: IWebSocketRouteAuthorizer } {
  return {
    httpAuthorizer: new HttpJwtAuthorizer('JwtAuthorizer', auth.issuer, {
      jwtAudience: [...auth.audience],
      identitySource: ['$request.header.Authorization'],
    }),
    webSocketAuthorizer: new WebSocketLambdaAuthorizer('ConnectAuthorizer', fn, {
      identitySource: [...WEBSOCKET_IDENTITY_SOURCES[tokenSource]],
    }),
  };
}
