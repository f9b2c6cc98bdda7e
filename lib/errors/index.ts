export {
  AgentDefinitionError,
  type ErrorType,
  InvalidHostResultError,
  type Issue,
  MalformedRequestError,
  NotFoundError,
  SessionConflictError,
  SwitchboardError,
  UnauthorizedError,
  ValidationError,
} from './errors.ts';
export { issuesOf, parseOrThrow, throwIssues } from './zod.ts';
