import { jsonSchemasReady } from '../../contract/index.ts';
import type { Middleware } from './types.ts';

/**
 * `schemas`: waits for the JSON Schema checker the function loads at start-up; a tool schema found
 * unusable then fails every request (see `jsonSchemasReady`).
 */
export const schemas: Middleware = {
  name: 'schemas',
  before: jsonSchemasReady,
};
