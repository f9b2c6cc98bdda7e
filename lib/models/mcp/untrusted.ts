import type { ImagePart } from '../../contract/index.ts';
import { MAX_JSON_DEPTH, tooDeepAt } from '../../contract/json-body.ts';

/**
 * What one MCP server may send, as a model endpoint's reply is bounded (`MODEL_REPLY_LIMITS`): the
 * server is trusted no more than a host. Everything it sends is parsed by the SDK's schemas (shapes),
 * then checked here (sizes, depth, no `__proto__` key) before the model or a host sees any of it.
 */
export const MCP_LIMITS = {
  /** One HTTP response of the server (a JSON body or an event stream), in bytes on the wire. */
  responseBytes: 8 * 1024 * 1024,
  /** Tools one agent is offered of one server, after its allowlist (further ones are left out, with a warning). */
  tools: 128,
  /** Tools kept of one server's list (further ones are left out, with a warning). */
  listedTools: 1024,
  /** Pages of `tools/list` read (a server that pages forever is cut there). */
  listPages: 10,
  /** A tool's name as the server gives it, in characters. */
  toolNameLength: 128,
  /** A tool's description, in characters (past it, the tool is left out). */
  descriptionLength: 8 * 1024,
  /** A tool's input schema, in bytes of JSON. */
  schemaBytes: 64 * 1024,
  /** The text the model reads of one result (past it, cut, and the model told so). */
  resultTextBytes: 256 * 1024,
  /** The structured content kept as a result's data (past it, left out of the event). */
  structuredBytes: 256 * 1024,
  /** Images one result may hand the model. */
  images: 4,
  /** One image's bytes (base64 decoded). */
  imageBytes: 5 * 1024 * 1024,
} as const;

/** The media types of images a model is handed (those the model endpoints take). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * Whether base64 `data` begins as an image of `type` does (its magic bytes): an endpoint refuses a
 * request whose image it cannot read, and the turn would fail with it; an image that is not one is
 * named to the model instead.
 */
function isImage(data: string, type: string): boolean {
  const head = Buffer.from(data.slice(0, 24), 'base64');
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');
  if (type === 'image/png') return head.subarray(0, 8).equals(PNG_SIGNATURE);
  if (type === 'image/jpeg') return head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
  if (type === 'image/gif') return ascii(0, 4) === 'GIF8';
  return ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP';
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A name the server gave, as a warning may print it: printable ASCII, at most 128 characters. */
export const nameText = (name: string) =>
  name.replace(/[^\x20-\x7e]/g, '?').slice(0, MCP_LIMITS.toolNameLength);

/**
 * Where a value of the server's JSON breaks a rule: nested deeper than {@link MAX_JSON_DEPTH}, or an
 * own `__proto__` key (which `JSON.parse` makes, and which an assignment elsewhere would read as the
 * prototype). Undefined when it breaks none. Walks with a list, never the stack.
 */
export function untrustedProblem(value: unknown): string | undefined {
  if (tooDeepAt(value, MAX_JSON_DEPTH)) return `it nests deeper than ${MAX_JSON_DEPTH} levels`;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null) continue;
    if (!Array.isArray(item) && Object.hasOwn(item, '__proto__')) return 'it has a "__proto__" key';
    pending.push(...Object.values(item));
  }
  return undefined;
}

/** A tool of a server's list, as the model may be offered it. */
export interface ListedTool {
  /** The server's name for it: what `tools/call` is sent. */
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** A tool of the list as the SDK parsed it, checked; or why it is left out. */
export function listedTool(tool: {
  name: string;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
}): ListedTool | string {
  if (tool.name.length > MCP_LIMITS.toolNameLength)
    return `its name is longer than ${MCP_LIMITS.toolNameLength} characters`;
  if ((tool.description?.length ?? 0) > MCP_LIMITS.descriptionLength)
    return `its description is longer than ${MCP_LIMITS.descriptionLength} characters`;
  const problem = untrustedProblem(tool.inputSchema);
  if (problem) return `its input schema is refused: ${problem}`;
  if (Buffer.byteLength(JSON.stringify(tool.inputSchema)) > MCP_LIMITS.schemaBytes)
    return `its input schema is larger than ${MCP_LIMITS.schemaBytes / 1024} KiB`;
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: withoutPatterns(tool.inputSchema) as Record<string, unknown>,
  };
}

/** Where a JSON Schema keyword holds one schema, a map of schemas, or a list of schemas. */
const ONE_SCHEMA = [
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_MAPS = ['properties', 'definitions', '$defs', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

/**
 * A server's schema without its regular expressions (`pattern`, `patternProperties`), wherever they
 * are keywords (a property named `pattern` stays): they would run in the worker when the model's
 * arguments are checked, and in the HTTP function when a person's edit of an approval is, and a
 * server's expression can take exponential time. The server checks its own arguments.
 */
function withoutPatterns(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' || key === 'patternProperties') continue;
    if (SCHEMA_MAPS.includes(key) && typeof value === 'object' && value !== null && !Array.isArray(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutPatterns(sub)]));
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(withoutPatterns);
    else if (ONE_SCHEMA.includes(key)) out[key] = withoutPatterns(value);
    else out[key] = value;
  }
  return out;
}

/** One block of a call's `content`, as the SDK parsed it (the union of the spec's content types). */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource_link'; uri: string; name: string; mimeType?: string | undefined }
  | {
      type: 'resource';
      resource: { uri: string; mimeType?: string | undefined; text?: string; blob?: string };
    };

/** What a call answered, as the model and the host see it. */
export interface ToolAnswer {
  /** What the model reads: the content's text, resources with their URIs, images announced. */
  text: string;
  /** Images the model sees in the message after the results. */
  images: ImagePart[];
  /** The tool reported a failure (`isError`): the model is told, the host sees a failed result. */
  failed: boolean;
  /** The result's data for the host's `tool_result`: `structuredContent`, else the content summed up. */
  data: unknown;
}

/**
 * A call's result mapped to what the model reads: text as text; embedded resources and resource
 * links as text with their URIs; images as images the model sees next (announced in the text);
 * audio and binary resources named only. `structuredContent` is the result's data (and the model's
 * text when the content has none). A result that breaks {@link untrustedProblem} is a failure.
 */
export function toolAnswer(result: {
  content?: McpContent[] | unknown[];
  structuredContent?: unknown;
  isError?: boolean | undefined;
}): ToolAnswer {
  const problem = untrustedProblem(result);
  if (problem) return refused(`The tool's result is refused: ${problem}.`);
  const lines: string[] = [];
  const images: ImagePart[] = [];
  const summary: unknown[] = [];
  for (const block of (result.content ?? []) as McpContent[]) {
    switch (block.type) {
      case 'text':
        lines.push(block.text);
        summary.push({ type: 'text', text: block.text });
        break;
      case 'image': {
        const bytes = Buffer.byteLength(block.data, 'base64');
        const usable =
          IMAGE_TYPES.has(block.mimeType) &&
          bytes <= MCP_LIMITS.imageBytes &&
          images.length < MCP_LIMITS.images &&
          isImage(block.data, block.mimeType);
        if (usable) images.push({ type: 'image', mediaType: block.mimeType, data: block.data });
        lines.push(
          usable
            ? `[An image (${block.mimeType}): shown to you in the next message.]`
            : `[An image (${mediaTypeText(block.mimeType)}) that cannot be shown.]`,
        );
        summary.push({ type: 'image', mime_type: mediaTypeText(block.mimeType), bytes });
        break;
      }
      case 'audio':
        lines.push(`[Audio (${mediaTypeText(block.mimeType)}), which cannot be played here.]`);
        summary.push({ type: 'audio', mime_type: mediaTypeText(block.mimeType) });
        break;
      case 'resource_link':
        lines.push(`[Resource link: ${block.name} <${block.uri}>]`);
        summary.push({ type: 'resource_link', uri: block.uri, name: block.name });
        break;
      case 'resource': {
        const { uri, text } = block.resource;
        lines.push(
          text !== undefined ? `[Resource <${uri}>]\n${text}` : `[Resource <${uri}>: binary, not shown]`,
        );
        summary.push({ type: 'resource', uri, ...(text !== undefined && { text }) });
        break;
      }
      default:
        lines.push('[Content of a kind this runtime does not read.]');
    }
  }
  const structured = result.structuredContent;
  let text = lines.join('\n');
  if (text === '' && structured !== undefined) text = JSON.stringify(structured);
  text = cut(text);
  const keep =
    structured !== undefined && Buffer.byteLength(JSON.stringify(structured)) <= MCP_LIMITS.structuredBytes;
  const data = keep ? structured : { content: summaryCut(summary) };
  return { text, images, failed: result.isError === true, data };
}

/** A refused result: a failure the model is told about. */
const refused = (text: string): ToolAnswer => ({
  text,
  images: [],
  failed: true,
  data: { content: [{ type: 'text', text }] },
});

/** A media type as text the model and the host may read: a well-formed one, else a placeholder. */
const mediaTypeText = (type: string) => (/^[\w.+-]{1,64}\/[\w.+-]{1,64}$/.test(type) ? type : 'unknown type');

/** Text cut to {@link MCP_LIMITS}.resultTextBytes, with the model told so. */
function cut(text: string): string {
  const limit = MCP_LIMITS.resultTextBytes;
  if (Buffer.byteLength(text) <= limit) return text;
  const kept = Buffer.from(text)
    .subarray(0, limit)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${kept}\n[The result was cut here: it passed ${limit / 1024} KiB.]`;
}

/** The content summed up for the host's event, its text bounded as the model's is. */
function summaryCut(summary: unknown[]): unknown[] {
  return Buffer.byteLength(JSON.stringify(summary)) <= MCP_LIMITS.resultTextBytes
    ? summary
    : [{ type: 'text', text: '[The result is too large to show here.]' }];
}
