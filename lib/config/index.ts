export {
  allows,
  FUNCTION_NAMES,
  FUNCTION_PERMISSIONS,
  type FunctionName,
  type Grant,
  type Permissions,
  type ResourceKind,
} from './permissions.ts';
export {
  createRuntime,
  type Runtime,
  type RuntimeConfig,
  runtimeFromEnv,
  settingsFromEnv,
} from './runtime.ts';
export { parseSettings, type Settings, SettingsSchema } from './settings.ts';
