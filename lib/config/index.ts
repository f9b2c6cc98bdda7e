export { METRIC_UNITS, type MetricDimensions, type MetricName, type RuntimeMetrics } from './metrics.ts';
export {
  allows,
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  type FunctionName,
  GRANTEE_PERMISSIONS,
  type Grant,
  OBJECT_PREFIXES,
  type ObjectPrefix,
  type Permissions,
  type ResourceKind,
} from './permissions.ts';
export { TURNS_MAX_RECEIVE_COUNT } from './queue.ts';
export {
  type AwsClient,
  type ClientHook,
  type ClientService,
  DYNAMODB_ATTEMPTS,
  type Runtime,
  type TraceSettings,
} from './runtime.ts';
export {
  parseSettings,
  SETTINGS_FILE,
  type Settings,
  type SettingsInput,
  SettingsSchema,
} from './settings.ts';
export { type RateRule, RetentionSettingsSchema } from './settings-sections.ts';
