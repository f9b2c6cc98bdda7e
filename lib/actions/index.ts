// The runs render the answers they announce as the views do.
export { resolutionView } from '../contract/index.ts';
export { notPending } from './conflict.ts';
export { applyPause, type PauseChange } from './pause.ts';
export { resolutionOf, withoutScreenshots } from './resolution.ts';
export { actionView, askedOf, pendingToolCallOf } from './views.ts';
