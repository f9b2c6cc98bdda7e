export { broadcast, eventView, frameOf, type PushOutcome, pushToConnection } from './push.ts';
export { asSwitchboardError, errorFrame, errorResponse, json } from './responses.ts';
