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
  createRuntime,
  DYNAMODB_ATTEMPTS,
  type Runtime,
  type RuntimeConfig,
  runtimeFromEnv,
  settingsFromEnv,
} from './runtime.ts';
export {
  parseSettings,
  RetentionSettingsSchema,
  SETTINGS_FILE,
  type Settings,
  type SettingsInput,
  SettingsSchema,
} from './settings.ts';
