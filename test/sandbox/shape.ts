/**
 * The shape of a JSON value: 'string' | 'number' | 'boolean' | 'null' for primitives, a
 * one-element array for an array (the merged shape of its elements), an object of shapes for an
 * object. A map (an object whose keys are data, such as headers) is `{ '{key}': shape }`.
 * 'never' is the element of an empty array or map and matches anything.
 */
export type Shape = string | Shape[] | { [key: string]: Shape };

/** Paths (dot-separated, `*` for any array element) whose objects are maps, not records. */
export interface ShapeOptions {
  maps?: string[];
}

const MAP_KEY = '{key}';

function isObject(shape: Shape): shape is { [key: string]: Shape } {
  return typeof shape === 'object' && !Array.isArray(shape);
}

function merge(a: Shape, b: Shape): Shape {
  if (a === 'never') return b;
  if (b === 'never') return a;
  if (Array.isArray(a) && Array.isArray(b)) return [merge(a[0] ?? 'never', b[0] ?? 'never')];
  if (isObject(a) && isObject(b)) {
    const out: { [key: string]: Shape } = { ...a };
    for (const [key, value] of Object.entries(b))
      out[key] = key in out ? merge(out[key] ?? 'never', value) : value;
    return out;
  }
  if (typeof a === 'string' && typeof b === 'string')
    return [...new Set([...a.split('|'), ...b.split('|')])].sort().join('|');
  return 'mixed';
}

/** The shape of `value`; see {@link Shape}. */
export function shapeOf(value: unknown, options: ShapeOptions = {}, path = ''): Shape {
  const maps = options.maps ?? [];
  const child = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    return [value.map((item) => shapeOf(item, options, child('*'))).reduce<Shape>(merge, 'never')];
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    if (maps.includes(path)) {
      return {
        [MAP_KEY]: entries
          .map(([, item]) => shapeOf(item, options, child(MAP_KEY)))
          .reduce<Shape>(merge, 'never'),
      };
    }
    const sorted = entries.sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(sorted.map(([key, item]) => [key, shapeOf(item, options, child(key))]));
  }
  return typeof value;
}

/** Where `actual` differs from `expected`, as readable lines; empty when they have the same shape. */
export function diffShapes(actual: Shape, expected: Shape, path = '$'): string[] {
  if (actual === 'never' || expected === 'never') return [];
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return diffShapes(actual[0] ?? 'never', expected[0] ?? 'never', `${path}[]`);
  }
  if (isObject(actual) && isObject(expected)) {
    const keys = [...new Set([...Object.keys(actual), ...Object.keys(expected)])].sort();
    return keys.flatMap((key) => {
      const a = actual[key];
      const e = expected[key];
      if (a === undefined) return [`${path}.${key}: missing (expected ${JSON.stringify(e)})`];
      if (e === undefined) return [`${path}.${key}: unexpected (${JSON.stringify(a)})`];
      return diffShapes(a, e, `${path}.${key}`);
    });
  }
  return JSON.stringify(actual) === JSON.stringify(expected)
    ? []
    : [`${path}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`];
}

/** Compares two values by shape; `[]` means same keys and types, recursively. */
export function shapeDifferences(actual: unknown, expected: unknown, options: ShapeOptions = {}): string[] {
  return diffShapes(shapeOf(actual, options), shapeOf(expected, options));
}
