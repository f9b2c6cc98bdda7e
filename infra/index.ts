/**
 * Switchboard's CDK construct and the route lists it shares with the local sandbox.
 *
 * @example
 * ```ts
 * import { Switchboard } from 'switchboard/infra';
 * new Switchboard(stack, 'Switchboard', {
 *   agents: './src/agents.ts',
 *   auth: { issuer: 'https://login.example.com/', audience: ['hosts'] },
 * });
 * ```
 */

export {
  FUNCTION_PERMISSIONS,
  type FunctionName,
  GRANTEE_PERMISSIONS,
  type Grant,
  OBJECT_PREFIXES,
  type ObjectPrefix,
  type ResourceKind,
} from '../lib/config/index.ts';
export {
  type AccessLogOptions,
  API_GATEWAY_LOGS_POLICY,
  addAccessLog,
  createApiGatewayAccountRole,
  HTTP_ACCESS_LOG_FORMAT,
  WEBSOCKET_ACCESS_LOG_FORMAT,
  WEBSOCKET_ACCESS_LOGS,
  type WebSocketAccessLogs,
} from './access-logs.ts';
export { builtInAuthorizers, createHttpApi, createWebSocketApi, throttleStage } from './apis.ts';
export {
  bundleTarget,
  createSwitchboardFunction,
  LAMBDA_RUNTIMES,
  type SwitchboardEntry,
  type SwitchboardFunctionOptions,
} from './functions.ts';
export { acknowledgeGuardFindings, GUARD_REASONS, type SwitchboardGuardContext } from './guard.ts';
export {
  DEFAULT_ALARM_THRESHOLDS,
  type MonitoredParts,
  type SwitchboardAlarmThresholds,
  SwitchboardMonitoring,
  type SwitchboardMonitoringProps,
} from './monitoring.ts';
export {
  acknowledgeAnonymousAccess,
  acknowledgeSwitchboardFindings,
  type SwitchboardNagContext,
} from './nag.ts';
export {
  type CheckedSwitchboardProps,
  checkSwitchboardProps,
  type ResolvedSwitchboardProps,
  type ResolvedTracing,
  type SwitchboardAuth,
  type SwitchboardLogLevel,
  type SwitchboardModels,
  type SwitchboardNodeRuntime,
  type SwitchboardProps,
  type SwitchboardTracing,
  tracingOf,
} from './props.ts';
export {
  HTTP_ROUTES,
  type HttpRouteKey,
  type HttpRouteMethod,
  splitHttpRoute,
  WEBSOCKET_IDENTITY_SOURCES,
  WEBSOCKET_ROUTES,
  WEBSOCKET_SPECIAL_ROUTES,
  type WebSocketRouteKey,
  type WebSocketTokenSource,
} from './routes.ts';
export {
  type BucketRetention,
  bucketRetention,
  createBucket,
  createTable,
  createTurnsQueue,
  SWEEP_INDEX_NAME,
  TURNS_MAX_RECEIVE_COUNT,
} from './storage.ts';
export { Switchboard } from './switchboard.ts';
