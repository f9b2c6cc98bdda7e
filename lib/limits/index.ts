export { limitConnection, limitFrame, limitUser } from './rate-limit.ts';
export {
  type LimitsSettings,
  LimitsSettingsSchema,
  type RateRule,
  RateRuleSchema,
  type RateWindow,
} from './types.ts';
export { counterTtl, describeRule, windowOf } from './window.ts';
