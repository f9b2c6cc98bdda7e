import * as z from 'zod';
import type { Issue } from '../errors/index.ts';

/**
 * The contract's own field names at one level of a body: a nested level, an array of one, a map
 * of host-chosen keys to one, or a leaf. Everything not described is the host's own and is passed
 * through verbatim (view.data, view.state, extensions, action parameters, background summaries).
 */
export type Shape =
  | { kind: 'object'; fields: Record<string, Shape>; aliases?: Record<string, string> }
  | { kind: 'array'; of: Shape }
  | { kind: 'map'; of: Shape }
  | { kind: 'leaf' };

export const leaf: Shape = { kind: 'leaf' };

/**
 * What a schema alone cannot say about its field names: a schema's alias names (`page` for
 * `view`), or the whole shape of a custom schema (a map checked by hand). Everything else is read
 * from the schema itself by {@link shapeOf}, so each contract field is described once.
 */
export const contractShapes = z.registry<{ aliases?: Record<string, string>; shape?: Shape }>();

type Def = { type: string; shape?: Record<string, z.ZodType>; [key: string]: unknown };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The contract's field names in a zod schema, for normalising camelCase: an object's fields, an
 * array's element, a record's values, through optional, default and pipe wrappers; anything else
 * (unions, unknown, the host's own values) is a leaf whose keys are left alone.
 */
export function shapeOf(schema: z.ZodType): Shape {
  const known = contractShapes.get(schema);
  if (known?.shape) return known.shape;
  const def = defOf(schema);
  switch (def.type) {
    case 'object':
      return {
        kind: 'object',
        fields: Object.fromEntries(
          Object.entries(def.shape ?? {}).map(([name, field]) => [name, shapeOf(field)]),
        ),
        ...(known?.aliases && { aliases: known.aliases }),
      };
    case 'array':
      return { kind: 'array', of: shapeOf(def.element as z.ZodType) };
    case 'record':
      return { kind: 'map', of: shapeOf(def.valueType as z.ZodType) };
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return shapeOf(def.innerType as z.ZodType);
    case 'pipe':
      return shapeOf(def.in as z.ZodType);
    default:
      return leaf;
  }
}

/** `capturedAt` → `captured_at`; a snake_case name is left as it is. */
export function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Where the normaliser renamed a key: the path as normalised, and the name as sent. */
export type Renames = Map<string, string>;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Renames the contract's camelCase field names to snake_case (and aliases to their field), and
 * leaves every other key alone. A field given twice (as `captured_at` and `capturedAt`) is an issue.
 */
export function normalizeKeys(
  value: unknown,
  shape: Shape,
  path: (string | number)[] = [],
  renames: Renames = new Map(),
  issues: Issue[] = [],
): unknown {
  if (shape.kind === 'array' && Array.isArray(value)) {
    return value.map((item, i) => normalizeKeys(item, shape.of, [...path, i], renames, issues));
  }
  if (shape.kind === 'map' && isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, normalizeKeys(v, shape.of, [...path, k], renames, issues)]),
    );
  }
  if (shape.kind !== 'object' || !isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  const sentAs = new Map<string, string>();
  const own = (table: Record<string, unknown> | undefined, key: string) =>
    table && Object.hasOwn(table, key) ? table[key] : undefined;
  for (const [key, item] of Object.entries(value)) {
    const snake = snakeCase(key);
    const alias = (own(shape.aliases, key) ?? own(shape.aliases, snake)) as string | undefined;
    const field = alias ?? (Object.hasOwn(shape.fields, snake) ? snake : key);
    const earlier = sentAs.get(field);
    if (earlier !== undefined) {
      issues.push({
        path: [...path, key],
        message: `"${key}" and "${earlier}" are the same field; send it once.`,
      });
      continue;
    }
    sentAs.set(field, key);
    if (field !== key) renames.set(JSON.stringify([...path, field]), key);
    const inner = own(shape.fields, field) as Shape | undefined;
    // defineProperty, so that a key named "__proto__" stays a key (and is then rejected as unknown).
    Object.defineProperty(out, field, {
      value: inner ? normalizeKeys(item, inner, [...path, field], renames, issues) : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A path of the normalised body, spelled as the host sent it. */
export function pathAsSent(path: (string | number)[], renames: Renames): (string | number)[] {
  return path.map((segment, i) => renames.get(JSON.stringify(path.slice(0, i + 1))) ?? segment);
}
