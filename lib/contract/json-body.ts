import { MalformedRequestError, PayloadTooLargeError, TooDeepError } from '../errors/index.ts';

/**
 * How deep objects and arrays may nest in anything a host sends, the body itself being level 1.
 * Every walk of a body (key normalisation, size checks, rendering, JSON Schema compilation) stays
 * far from the stack's limit below it.
 */
export const MAX_JSON_DEPTH = 64;

/** The most bytes of JSON each transport takes, before anything is parsed. */
export const BODY_LIMITS = {
  /** An HTTP API request body: API Gateway's own limit, 10 MB. */
  http: 10 * 1024 * 1024,
  /** A WebSocket message: API Gateway's limit of 128 KB (a browser sends it as one frame of 32 KB). */
  frame: 128 * 1024,
  /** `POST /api/files` asking for an upload URL: a name, a media type and a size. */
  uploadRequest: 16 * 1024,
} as const;

/**
 * What the runtime answers over HTTP fits a Lambda answer (at most 6 MB, else API Gateway answers
 * 500). Each bound is measured as a value travels: its JSON inside the response's `body` string,
 * where every quote and backslash is escaped once more ({@link answerBytes}).
 */
export const ANSWER_LIMITS = {
  /** A page, an export or one item answered inline; past it an export is handed over by a link. */
  inline: 5 * 1024 * 1024,
  /**
   * One message or event in a page or a frame's listing; past it the page lists a reference
   * (`content_ref`, `href`), and the reference answers a short-lived link to the whole item.
   */
  listedItem: 1024 * 1024,
} as const;

/** How many bytes a value takes in an HTTP answer: its JSON inside the response's `body` string. */
export const answerBytes = (value: unknown): number =>
  Buffer.byteLength(JSON.stringify(JSON.stringify(value) ?? ''));

interface Level {
  value: unknown;
  depth: number;
  parent?: Level;
  key?: string | number;
}

function pathOf(level: Level): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Level | undefined = level; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}

/**
 * The path of a value nested deeper than `maxDepth` levels of objects and arrays, or undefined
 * when there is none. It walks with a list of its own, never the call stack, so any depth (or a
 * cycle, in a value that did not come from JSON) is safe to check.
 */
export function tooDeepAt(value: unknown, maxDepth = MAX_JSON_DEPTH): (string | number)[] | undefined {
  const pending: Level[] = [{ value, depth: 0 }];
  for (let level = pending.pop(); level !== undefined; level = pending.pop()) {
    const item = level.value;
    if (item === null || typeof item !== 'object') continue;
    if (level.depth + 1 > maxDepth) return pathOf(level);
    // Only objects and arrays go on the list: a body of many scalars costs no allocation per value.
    const push = (key: string | number, v: unknown) => {
      if (v !== null && typeof v === 'object')
        pending.push({ value: v, depth: level.depth + 1, parent: level, key });
    };
    if (Array.isArray(item)) for (let i = 0; i < item.length; i += 1) push(i, item[i]);
    else for (const key of Object.keys(item)) push(key, (item as Record<string, unknown>)[key]);
  }
  return undefined;
}

/** Throws a {@link TooDeepError} when `value` nests deeper than {@link MAX_JSON_DEPTH}; `what` names it. */
export function checkDepth(value: unknown, what: string): void {
  const path = tooDeepAt(value);
  if (path === undefined) return;
  const message = `nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
  throw new TooDeepError(`Invalid ${what}${path.length > 0 ? ` at ${path.join('.')}` : ''}: ${message}`, [
    { path, message },
  ]);
}

/**
 * The one parse of a JSON body, in front of every schema, for HTTP and WebSocket alike: a body
 * over `maxBytes` is a 413 (`payload_too_large`), one that is missing or not JSON a 400
 * (`invalid_json`), one nested deeper than {@link MAX_JSON_DEPTH} a 422 (`too_deep`) at the path
 * where it went too deep. Never a 500.
 */
export function parseJsonBody(
  body: string | undefined | null,
  isBase64 = false,
  { maxBytes = BODY_LIMITS.http, what = 'body' }: { maxBytes?: number; what?: string } = {},
): unknown {
  if (body === undefined || body === null || body === '')
    throw new MalformedRequestError('The request has no body.');
  const bytes = isBase64 ? Buffer.from(body, 'base64') : undefined;
  const size = bytes ? bytes.byteLength : Buffer.byteLength(body);
  if (size > maxBytes)
    throw new PayloadTooLargeError(
      'payload_too_large',
      `The ${what} is ${size} bytes; at most ${maxBytes} are taken.`,
      [{ path: [], message: `at most ${maxBytes} bytes of JSON` }],
    );
  let value: unknown;
  try {
    value = JSON.parse(bytes ? bytes.toString('utf8') : body);
  } catch {
    throw new MalformedRequestError('The request body is not valid JSON.');
  }
  checkDepth(value, what);
  return value;
}
