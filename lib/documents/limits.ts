import { CHAT_JSON_BYTES, ChatRequestSchema, HOST_CONTEXT_LIMITS } from '../contract/index.ts';
import { type JsonSchema, jsonSchemaOf } from './json-schema.ts';

/** Where docs/protocol.md holds the generated table, so that `npm run contract` can rewrite it. */
export const LIMITS_START = '<!-- limits:start (written by npm run contract from the zod schemas) -->';
export const LIMITS_END = '<!-- limits:end -->';

const count = (n: number) => n.toLocaleString('en-US');

/** A pattern that is one character class repeated m to n times says a length too. */
const CLASS_RUN = /^\^\[[^\]]*\]\{(\d+),(\d+)\}\$$/;

/** What one schema bounds, in words: length, items, range. Empty when it bounds nothing. */
function boundsOf(schema: JsonSchema): string[] {
  const bounds: string[] = [];
  // A lower bound of 0 says nothing for a length or a count; for a number it is part of the range.
  const range = (min: unknown, max: unknown, unit: string, zero = false) => {
    const lo = typeof min === 'number' && (zero || min > 0) ? min : undefined;
    const hi = typeof max === 'number' ? max : undefined;
    const words =
      hi === undefined
        ? lo === undefined
          ? undefined
          : `at least ${count(lo)}`
        : lo === undefined
          ? `at most ${count(hi)}`
          : `${count(lo)}–${count(hi)}`;
    return words && `${words}${unit ? ` ${unit}` : ''}`;
  };
  const pattern = typeof schema.pattern === 'string' ? CLASS_RUN.exec(schema.pattern) : null;
  const length = pattern
    ? range(Number(pattern[1]), Number(pattern[2]), 'characters')
    : range(schema.minLength, schema.maxLength, 'characters');
  const items = range(schema.minItems, schema.maxItems, 'items');
  const numbers = range(schema.minimum, schema.maximum, '', true);
  for (const bound of [length, items, numbers]) if (bound) bounds.push(bound);
  return bounds;
}

/**
 * Every bound of a schema, by field path (`a.b`, `a[]` for an array's items, `a.*` for a map's
 * values), in the schema's order. A subtree seen before under another path is named once and then
 * referred to, so a message's attachments and host_context's are not listed twice.
 */
function walk(schema: JsonSchema, path: string, rows: [string, string][], seen: Map<string, string>): void {
  const bounds = boundsOf(schema);
  if (bounds.length > 0) rows.push([path, bounds.join(', ')]);
  const children: [string, JsonSchema][] = [];
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  for (const [name, child] of Object.entries(properties ?? {}))
    children.push([path ? `${path}.${name}` : name, child]);
  if (schema.items && typeof schema.items === 'object')
    children.push([`${path}[]`, schema.items as JsonSchema]);
  const values = schema.additionalProperties;
  if (values && typeof values === 'object' && Object.keys(values).length > 0)
    children.push([`${path}.*`, values as JsonSchema]);
  for (const [at, child] of children) {
    const key = child.properties ? JSON.stringify(child) : undefined;
    const before = key ? seen.get(key) : undefined;
    if (before) {
      rows.push([at, `as \`${before}\``]);
      continue;
    }
    if (key) seen.set(key, at);
    walk(child, at, rows, seen);
  }
}

/**
 * The limits of a message (`POST /api/chat`, `assistant_message`), each field in Markdown: the
 * schemas' own, then those checked in bytes or across fields.
 */
export function messageLimits(): [string, string][] {
  const rows: [string, string][] = [];
  walk(jsonSchemaOf(ChatRequestSchema), '', rows, new Map());
  const code = rows.map(([field, limit]): [string, string] => [`\`${field}\``, limit]);
  for (const [field, bytes] of Object.entries(CHAT_JSON_BYTES))
    code.push([`\`${field}\``, `at most ${count(bytes)} bytes of JSON`]);
  code.push(
    [
      '`host_context.view.data`, `host_context.view.state` and `host_context.extensions` together',
      `at most ${count(HOST_CONTEXT_LIMITS.curatedChars)} characters of JSON`,
    ],
    [
      '`host_context` without its attachments',
      `at most ${count(HOST_CONTEXT_LIMITS.totalBytes)} bytes of JSON`,
    ],
  );
  return code;
}

/** The limits as a Markdown table, its columns aligned. */
export function limitsTable(): string {
  const rows = messageLimits();
  const all: [string, string][] = [['field', 'limit'], ...rows];
  const width = [0, 1].map((i) => Math.max(...all.map((r) => r[i as 0 | 1].length)));
  const line = (r: [string, string]) => `| ${r[0].padEnd(width[0] ?? 0)} | ${r[1].padEnd(width[1] ?? 0)} |`;
  const rule = `| ${'-'.repeat(width[0] ?? 0)} | ${'-'.repeat(width[1] ?? 0)} |`;
  return all.map((r, i) => (i === 0 ? `${line(r)}\n${rule}` : line(r))).join('\n');
}

/** `markdown` with the text between the limits markers replaced by the current table. */
export function withLimits(markdown: string): string {
  const start = markdown.indexOf(LIMITS_START);
  const end = markdown.indexOf(LIMITS_END);
  if (start < 0 || end < start) throw new Error('The limits markers are missing or out of order.');
  return `${markdown.slice(0, start + LIMITS_START.length)}\n\n${limitsTable()}\n\n${markdown.slice(end)}`;
}
