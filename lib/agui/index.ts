export { acceptRun, type Followed } from './accept.ts';
export { type FollowOptions, followRun, sseOf } from './follow.ts';
export {
  type AguiAuthenticate,
  type AguiHandler,
  type AguiHandlerOptions,
  aguiAuthenticationFromEnv,
  createAguiHandler,
  jwtAuthentication,
} from './handler.ts';
export { AGUI_VIEW, answerOf, chatRequestOf, clientKnows, hostContextOf } from './input.ts';
export { lambdaSink } from './lambda-sink.ts';
export {
  type AguiMessage,
  type AguiResume,
  parseRunAgentInput,
  type RunAgentInput,
  RunAgentInputSchema,
} from './schema.ts';
export { AguiTranslator, type RunEnd } from './translate.ts';
export type { AguiEvent, ClientKnows, OpenRequest, ResponseSink } from './types.ts';
