import { Ajv, type ValidateFunction } from 'ajv';

/**
 * The JSON Schema checker: ajv (about 120 KB minified). `json-schema.ts` imports this module with
 * `import()` when a function starts up (see `jsonSchemasReady`), so ajv is a chunk loaded before
 * the first event is served rather than parsed with the function's code at its cold import.
 */
const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
const cache = new WeakMap<object, ValidateFunction>();

/** Why ajv refuses `schema` as a JSON Schema (its meta-schema check), or undefined. */
export function metaSchemaProblem(schema: object): string | undefined {
  return ajv.validateSchema(schema) ? undefined : ajv.errorsText(ajv.errors);
}

/** The compiled validator of a schema, compiled once per schema object. */
export function compiled(schema: object): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    cache.set(schema, validate);
  }
  return validate;
}
