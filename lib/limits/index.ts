export { limitConnection, limitFrame, limitUser } from './rate-limit.ts';
export type { RateWindow } from './types.ts';
export { counterTtl, describeRule, windowOf } from './window.ts';
