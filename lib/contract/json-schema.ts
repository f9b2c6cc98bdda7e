import type { ValidateFunction } from 'ajv';

type Checker = typeof import('./json-schema-checker.ts');

let checker: Checker | undefined;
let ready: Promise<void> | undefined;
const deferred: (() => void)[] = [];

/**
 * Loads the JSON Schema checker (ajv, a chunk of its own in a function's bundle) and runs the checks
 * deferred until then ({@link whenJsonSchemasReady}); rejects with the first that fails. Every call
 * returns the same promise: the handlers await it before they serve their first event, so a schema
 * an agent registered that ajv cannot use fails every invocation, before any request is served,
 * as it failed the function's import when ajv was loaded with the code. The sandbox awaits it
 * when it starts, and the tests in their setup, so there a bad schema throws where it is registered.
 */
export function jsonSchemasReady(): Promise<void> {
  ready ??= import('./json-schema-checker.ts').then((loaded) => {
    checker = loaded;
    for (const check of deferred.splice(0)) check();
  });
  return ready;
}

/**
 * Installs the checker at once, where its size does not matter (the CDK construct, at synth): no
 * top-level await, so that a CommonJS app can still `require` the module that does it.
 */
export function installJsonSchemaChecker(loaded: Checker): void {
  if (checker) return;
  checker = loaded;
  ready = Promise.resolve();
  for (const check of deferred.splice(0)) check();
}

/**
 * Runs `check` (which uses the checker, and throws what is wrong) now if the checker is loaded, or
 * else when {@link jsonSchemasReady} loads it: an agent module registers its agents at import, before
 * any handler could load the checker.
 */
export function whenJsonSchemasReady(check: () => void): void {
  if (checker) check();
  else deferred.push(check);
}

function loaded(): Checker {
  if (!checker) {
    throw new Error(
      'The JSON Schema checker is loaded on first use: await jsonSchemasReady() before checking a schema.',
    );
  }
  return checker;
}

/**
 * Why `schema` is not a usable JSON Schema of type object, or undefined when it is one. The
 * schema is compiled, so one that ajv cannot use (a dangling $ref, a bad pattern) is caught here
 * rather than when a tool call is checked against it. Needs the checker ({@link jsonSchemasReady}).
 */
export function objectSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return 'must be a JSON schema object';
  if ((schema as { type?: unknown }).type !== 'object') return 'must be a JSON schema with "type": "object"';
  const { metaSchemaProblem, compiled: compile } = loaded();
  const problem = metaSchemaProblem(schema);
  if (problem) return `is not a valid JSON schema: ${problem}`;
  try {
    compile(schema);
  } catch (error) {
    return `is not a usable JSON schema: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * Why `schema` is not a usable JSON Schema (of any type), or undefined when it is one: it is
 * compiled, so what ajv cannot use is caught where the schema is given, not where it is used.
 * Needs the checker ({@link jsonSchemasReady}).
 */
export function jsonSchemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema))
    return 'must be a JSON schema object';
  const { compiled: compile } = loaded();
  try {
    compile(schema);
  } catch (error) {
    return `is not a usable JSON schema: ${(error as Error).message}`;
  }
  return undefined;
}

/** The compiled validator of a schema, compiled once per schema object. Needs the checker. */
export function compiled(schema: object): ValidateFunction {
  return loaded().compiled(schema);
}
