/**
 * The contract as data: the OpenAPI and AsyncAPI documents, generated from the zod schemas, and the
 * words that only the documents say (the error codes' descriptions among them). Only the sandbox and
 * `npm run contract` import this module (zod's JSON Schema output and the words stay out of the
 * functions' bundles): no other folder of lib imports it (test/unit/layering.test.ts), and it sits
 * above contract, errors and events, so no folder cycle closes through it.
 */
export { asyncApiDocument } from './asyncapi.ts';
export { ERROR_DESCRIPTIONS, ROUTE_ERRORS, statusOf } from './errors.ts';
export { openApiDocument } from './openapi.ts';
export * as responseSchemas from './responses.ts';
