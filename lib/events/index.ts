export {
  answerPath,
  budgetReachedEvent,
  pauseExpiring,
  pauseLapsed,
  pauseOpened,
  pauseResolved,
  turnFailed,
} from './build.ts';
export { entrySize, PUT_EVENTS_LIMITS, putEventsCalls } from './limits.ts';
export { type Published, publishEvents, publishing } from './publish.ts';
export {
  BudgetReachedSchema,
  type DetailOf,
  type DetailType,
  DOMAIN_EVENTS,
  type DomainEvent,
  EVENT_SOURCE,
  OperatorActionSchema,
  PauseExpiringSchema,
  PauseLapsedSchema,
  PauseOpenedSchema,
  PauseResolvedSchema,
  parseDetail,
  TurnFailedSchema,
} from './schema.ts';
