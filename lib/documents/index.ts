/**
 * The contract as data: the OpenAPI and AsyncAPI documents, generated from the zod schemas. Only the
 * sandbox and `npm run contract` import this module (zod's JSON Schema output stays out of the
 * functions' bundles): nothing under lib/contract/index.ts re-exports it.
 */
export { asyncApiDocument } from './asyncapi.ts';
export { ROUTE_ERRORS, statusOf } from './errors.ts';
export { openApiDocument } from './openapi.ts';
export * as responseSchemas from './responses.ts';
