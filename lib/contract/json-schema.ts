import { Ajv, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
const cache = new WeakMap<object, ValidateFunction>();

/**
 * Why `schema` is not a usable JSON Schema of type object, or undefined when it is one. The
 * schema is compiled, so one that ajv cannot use (a dangling $ref, a bad pattern) is caught here
 * rather than when a tool call is checked against it.
 */
export function objectSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return 'must be a JSON schema object';
  if ((schema as { type?: unknown }).type !== 'object') return 'must be a JSON schema with "type": "object"';
  if (!ajv.validateSchema(schema)) return `is not a valid JSON schema: ${ajv.errorsText(ajv.errors)}`;
  try {
    compiled(schema);
  } catch (error) {
    return `is not a usable JSON schema: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * Why `schema` is not a usable JSON Schema (of any type), or undefined when it is one: it is
 * compiled, so what ajv cannot use is caught where the schema is given, not where it is used.
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return 'must be a JSON schema object';
  try {
    compiled(schema);
  } catch (error) {
    return `is not a usable JSON schema: ${(error as Error).message}`;
  }
  return undefined;
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
