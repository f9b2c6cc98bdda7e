export {
  createRuntime,
  type Runtime,
  type RuntimeConfig,
  runtimeFromEnv,
  settingsFromEnv,
} from './runtime.ts';
export { parseSettings, type Settings, SettingsSchema } from './settings.ts';
