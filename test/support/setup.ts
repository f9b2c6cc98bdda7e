import { jsonSchemasReady } from '../../lib/contract/index.ts';

/**
 * The JSON Schema checker is a chunk a function loads when it starts up (`jsonSchemasReady`); the
 * tests load it first, as the sandbox does, so that schemas are checked where they are given.
 */
await jsonSchemasReady();
