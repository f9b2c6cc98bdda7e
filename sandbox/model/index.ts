/** The sandbox's scripted OpenAI-compatible model (docs/models.md, "The sandbox model"). */
export { checkScript, type ModelScript } from './script.ts';
export { startScriptedModel } from './server.ts';
export type { RecordedRequest, ScriptedModel, ScriptedModelOptions } from './types.ts';
