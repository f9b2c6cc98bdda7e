export { errors } from './errors.ts';
export { authorizerClaims, callerOf, identify } from './identify.ts';
export { pipeline } from './pipeline.ts';
export { rateLimit } from './rate-limit.ts';
export { schemas } from './schemas.ts';
export { telemetry } from './telemetry.ts';
export type { Invocation, Middleware, Piped } from './types.ts';
