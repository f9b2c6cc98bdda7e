import type { Issue } from './errors.ts';

/**
 * A JSON Schema (draft-07) as an object: what an approval's `argsSchema` is.
 *
 * @example
 * ```ts
 * const schema: JsonSchema = { type: 'object', properties: { amount: { type: 'number' } } };
 * ```
 */
export type JsonSchema = Record<string, unknown>;

const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number' && Number.isInteger(value)
        ? 'integer'
        : typeof value;

const fits = (value: unknown, type: string): boolean => {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

const isSchema = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Checks a value against the subset of JSON Schema that zod's `toJSONSchema` emits for tool
 * arguments (what `toJsonSchema` builds an `argsSchema` from): `type`, `enum`, `const`, `properties`,
 * `required`, `additionalProperties`, `items`, `minItems`/`maxItems`, `minimum`/`maximum` and their
 * exclusive forms, `multipleOf`, `minLength`/`maxLength`, `pattern`, `anyOf`/`oneOf`/`allOf`, and a
 * local `$ref` (`#/definitions/…`, `#/$defs/…`). Other keywords (`format`, …) are not checked here:
 * the server checks them, and a mismatch comes back as a `422` whose `issues` the client surfaces.
 * Kept small on purpose: a browser bundle carries no schema compiler.
 *
 * @example
 * ```ts
 * checkJsonSchema({ type: 'object', properties: { amount: { type: 'number', maximum: 100 } } }, { amount: 500 });
 * // [{ path: ['amount'], message: 'must be <= 100' }]
 * ```
 */
export function checkJsonSchema(
  schema: JsonSchema,
  value: unknown,
  path: (string | number)[] = [],
  root: JsonSchema = schema,
): Issue[] {
  const issues: Issue[] = [];
  const add = (message: string, at = path) => issues.push({ path: at, message });
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .reduce<unknown>(
        (node, key) => (isSchema(node) ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
        root,
      );
    if (isSchema(target)) issues.push(...checkJsonSchema(target, value, path, root));
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => fits(value, t))) {
      add(`must be ${types.join(' or ')}`);
      return issues;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => equal(option, value)))
    add(`must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`);
  if ('const' in schema && !equal(schema.const, value)) add(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === 'number') {
    const n = (key: string) => (typeof schema[key] === 'number' ? (schema[key] as number) : undefined);
    const [min, max, xmin, xmax, step] = [
      'minimum',
      'maximum',
      'exclusiveMinimum',
      'exclusiveMaximum',
      'multipleOf',
    ].map(n);
    if (min !== undefined && value < min) add(`must be >= ${min}`);
    if (max !== undefined && value > max) add(`must be <= ${max}`);
    if (xmin !== undefined && value <= xmin) add(`must be > ${xmin}`);
    if (xmax !== undefined && value >= xmax) add(`must be < ${xmax}`);
    if (step !== undefined && step > 0 && Math.abs(value / step - Math.round(value / step)) > 1e-9)
      add(`must be a multiple of ${step}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema.minLength === 'number' && length < schema.minLength)
      add(`must have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && length > schema.maxLength)
      add(`must have at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === 'string') {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) add(`must match ${schema.pattern}`);
      } catch {}
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      add(`must have at least ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems)
      add(`must have at most ${schema.maxItems} items`);
    if (Array.isArray(schema.prefixItems)) {
      schema.prefixItems.forEach((item, i) => {
        if (isSchema(item) && i < value.length)
          issues.push(...checkJsonSchema(item, value[i], [...path, i], root));
      });
    } else if (isSchema(schema.items)) {
      const items = schema.items;
      for (const [i, item] of value.entries())
        issues.push(...checkJsonSchema(items, item, [...path, i], root));
    }
  }
  if (isSchema(value)) {
    const properties = isSchema(schema.properties) ? schema.properties : {};
    for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!Object.hasOwn(value, key)) add('is required', [...path, key]);
    }
    for (const [key, item] of Object.entries(value)) {
      const own = properties[key];
      if (isSchema(own)) issues.push(...checkJsonSchema(own, item, [...path, key], root));
      else if (schema.additionalProperties === false) add(`Unknown field "${key}".`, [...path, key]);
      else if (isSchema(schema.additionalProperties))
        issues.push(...checkJsonSchema(schema.additionalProperties, item, [...path, key], root));
    }
  }
  const branches = (key: string) =>
    (Array.isArray(schema[key]) ? (schema[key] as unknown[]) : []).filter(isSchema);
  for (const branch of branches('allOf')) issues.push(...checkJsonSchema(branch, value, path, root));
  for (const key of ['anyOf', 'oneOf']) {
    const options = branches(key);
    if (options.length === 0) continue;
    const passing = options.filter(
      (option) => checkJsonSchema(option, value, path, root).length === 0,
    ).length;
    if (passing === 0 || (key === 'oneOf' && passing > 1))
      add(passing === 0 ? 'matches none of the allowed forms' : 'matches more than one allowed form');
  }
  return issues;
}
