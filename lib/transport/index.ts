export { broadcast, eventView, frameOf, type PushOutcome, pushToConnection } from './push.ts';
export { asSwitchboardError, type ErrorOptions, errorFrame, errorResponse, json } from './responses.ts';
