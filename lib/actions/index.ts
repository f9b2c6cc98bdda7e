export { notPending } from './conflict.ts';
export { applyPause, type PauseChange } from './pause.ts';
export { resolutionOf, withoutScreenshots } from './resolution.ts';
export { actionView, answeredOf, askedOf, pendingToolCallOf, resolutionView } from './views.ts';
