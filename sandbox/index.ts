/**
 * The local sandbox as a library: {@link startSandbox} runs the HTTP and WebSocket APIs, DynamoDB,
 * SQS, S3 and the functions in one process, as `switchboard dev` does, and {@link mintDevToken}
 * makes the tokens it accepts (the development key: for local use only). {@link startScriptedModel}
 * starts the sandbox's scripted OpenAI-compatible model, which agents call as they would a real
 * endpoint (docs/models.md, "The sandbox model").
 *
 * @example
 * ```ts
 * import { mintDevToken, startSandbox } from 'switchboard/sandbox';
 * import app from './agents.ts';
 *
 * const sandbox = await startSandbox({ app, jwt: true });
 * const token = await mintDevToken({ user: 'alice' });
 * await fetch(`${sandbox.url}/api/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '…' });
 * await sandbox.close();
 * ```
 */

export { DEV_AUDIENCE, DEV_ISSUER, type DevTokenOptions, mintDevToken } from './dev-key.ts';
export { eventLine, type ReceivedEvent } from './event-bus.ts';
export {
  checkScript,
  type ModelScript,
  type RecordedRequest,
  type ScriptedModel,
  type ScriptedModelOptions,
  startScriptedModel,
} from './model/index.ts';
export type { ReadableOutput } from './readable-log.ts';
export { type Sandbox, type SandboxOptions, startSandbox } from './sandbox.ts';
