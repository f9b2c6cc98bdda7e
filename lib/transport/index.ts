export { Audience } from './audience.ts';
export {
  type EventFrame,
  eventView,
  forgetConnection,
  framesOf,
  MAX_FRAME_BYTES,
  type PushOutcome,
  pushFrames,
  pushToConnection,
} from './push.ts';
export { asSwitchboardError, type ErrorOptions, errorFrame, errorResponse, json } from './responses.ts';
