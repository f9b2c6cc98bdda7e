export { Audience } from './audience.ts';
export {
  type EventFrame,
  eventView,
  framesOf,
  isGone,
  type PushOutcome,
  pushFrames,
  pushToConnection,
} from './push.ts';
export { asSwitchboardError, type ErrorOptions, errorFrame, errorResponse, json } from './responses.ts';
