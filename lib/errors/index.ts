export {
  AgentDefinitionError,
  type ErrorType,
  FeedbackHookError,
  InvalidContextError,
  InvalidHostResultError,
  InvalidTokenError,
  type Issue,
  MalformedRequestError,
  MessageNotFoundError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  SessionConflictError,
  SessionNotFoundError,
  SwitchboardError,
  TooDeepError,
  UnauthorizedError,
  UnprocessedItemsError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './errors.ts';
export { FencedError, MissingItemError, RetryLaterError } from './internal.ts';
export { issuesOf, parseOrThrow, throwIssues } from './zod.ts';
