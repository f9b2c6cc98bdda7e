export { Audience } from './audience.ts';
export {
  type EventFrame,
  eventReference,
  eventView,
  framesOf,
  isGone,
  listedEvent,
  type PushOutcome,
  pushFrames,
  pushToConnection,
} from './push.ts';
export { asSwitchboardError, type ErrorOptions, errorFrame, errorResponse, json } from './responses.ts';
