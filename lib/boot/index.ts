export { createRuntime, type RuntimeConfig } from './create-runtime.ts';
export { runtimeFromEnv, settingsFromEnv } from './from-env.ts';
