import { MAX_JSON_DEPTH } from '../../contract/json-body.ts';
import { MCP_LIMITS } from './untrusted.ts';

/**
 * The JSON-RPC error code of a message the runtime refused before the SDK saw it: its request fails
 * with it (an `McpError` whose `data.refused` says why).
 */
export const REFUSED_CODE = -32050;

/**
 * How deep a text of JSON nests, read as text (strings skipped), so that nothing recursive ever
 * meets a deeper one: the first depth past `limit`, or the deepest.
 */
function depthOf(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return deepest;
}

/**
 * Why a message the server sent is refused, with the ids of the requests it answers, or undefined:
 * nesting past {@link MAX_JSON_DEPTH} (read as text first, so that no parse recurses that deep), or
 * a `__proto__` key anywhere (seen as `JSON.parse` decodes it, escapes and all: the SDK's schemas copy
 * objects key by key, and such a key would be read as a prototype). Text that is not JSON is the
 * SDK's to refuse; a parse that fails otherwise is refused here.
 */
function problemOf(text: string): { problem: string; ids: unknown[] } | undefined {
  const deep = depthOf(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH;
  let proto = false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(deep ? '{}' : text, (key, value) => {
      if (key === '__proto__') proto = true;
      return value;
    });
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    return { problem: 'it could not be read', ids: [] };
  }
  const problem = deep
    ? `it nests deeper than ${MAX_JSON_DEPTH} levels`
    : proto
      ? 'it has a "__proto__" key'
      : undefined;
  if (!problem) return undefined;
  const ids = deep
    ? idsOf(text)
    : (Array.isArray(parsed) ? parsed : [parsed]).map((m) => (m as { id?: unknown } | null)?.id);
  return { problem, ids };
}

/** The ids a message answers, read without parsing it (it nests too deep to be parsed here). */
const idsOf = (text: string): unknown[] =>
  [...text.matchAll(/"id"\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,16})/g)]
    .slice(0, 1)
    .map(([, raw]) => JSON.parse(raw as string));

/**
 * A message in place of one refused: an error answer to each request it answered (so that the
 * request fails at once, not at its time-out), or nothing for a notification.
 */
function refusedText(text: string): string | undefined {
  const refused = problemOf(text);
  if (!refused) return text;
  const errors = refused.ids
    .filter((id) => typeof id === 'string' || typeof id === 'number')
    .map((id) => ({
      jsonrpc: '2.0',
      id,
      error: { code: REFUSED_CODE, message: 'refused', data: { refused: refused.problem } },
    }));
  if (errors.length === 0) return undefined;
  return JSON.stringify(errors.length === 1 ? errors[0] : errors);
}

const tooLarge = () =>
  new Error(`the server's response passed ${MCP_LIMITS.responseBytes / 1024 / 1024} MiB`);

/** A counter of a body's bytes that fails past {@link MCP_LIMITS}.responseBytes. */
function counter(): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > MCP_LIMITS.responseBytes) controller.error(tooLarge());
      else controller.enqueue(chunk);
    },
  });
}

/**
 * An event stream's messages checked one event at a time, as the SDK's parser reads them: every
 * line ending (CRLF, LF, or a lone CR) made LF first, so that both see the same lines and events;
 * the `data` of each event a JSON-RPC message, replaced by an error answer when refused (an event
 * with no data is passed as it is). One event is bounded by {@link MCP_LIMITS}.responseBytes (the
 * stream as a whole is not: the notification stream lives as long as its MCP session).
 */
function checkedEvents(): TransformStream<string, string> {
  let buffer = '';
  /** Where to look for the next event's end from: what was searched already holds none. */
  let searched = 0;
  let heldCr = false;
  const isData = (line: string) => line === 'data' || line.startsWith('data:');
  /** One event (its lines, without the blank line that ends it), its data checked in the first data line's place. */
  const checked = (raw: string): string => {
    const lines = raw.split('\n');
    const data = lines.filter(isData).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (data.length === 0) return raw;
    const replaced = refusedText(data.join('\n'));
    const first = lines.findIndex(isData);
    return lines
      .flatMap((line, i) =>
        !isData(line) ? [line] : i === first && replaced !== undefined ? [`data: ${replaced}`] : [],
      )
      .join('\n');
  };
  /** Every whole event of the buffer, checked, in order. */
  const events = (controller: TransformStreamDefaultController<string>) => {
    for (let end = buffer.indexOf('\n\n', searched); end >= 0; end = buffer.indexOf('\n\n')) {
      controller.enqueue(`${checked(buffer.slice(0, end))}\n\n`);
      buffer = buffer.slice(end + 2);
      searched = 0;
    }
    searched = Math.max(0, buffer.length - 1);
  };
  return new TransformStream({
    transform(chunk, controller) {
      // A CR at a chunk's end may be the first half of a CRLF: it waits for the next chunk.
      let text = (heldCr ? '\r' : '') + chunk;
      heldCr = text.endsWith('\r');
      if (heldCr) text = text.slice(0, -1);
      buffer += text.replace(/\r\n?/g, '\n');
      events(controller);
      if (buffer.length > MCP_LIMITS.responseBytes) controller.error(tooLarge());
    },
    flush(controller) {
      if (heldCr) buffer += '\n';
      events(controller);
      // An event the stream ended in the middle of is dispatched by no parser: it is checked all the same.
      if (buffer !== '') controller.enqueue(checked(buffer));
    },
  });
}

/**
 * The `fetch` of a server's transport: every JSON-RPC message of every answer checked before the SDK
 * parses it ({@link problemOf}): a JSON body (bounded by {@link MCP_LIMITS}.responseBytes), and any
 * other successful body as the event stream the SDK reads it as (whatever its content type says),
 * one bounded event at a time. An error status's body is the SDK's to report (only its status is).
 * Redirects are left to the SDK's `same-origin` policy: none to another origin is followed.
 */
export const checkedMcpFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.body === null) return res;
  const head = { status: res.status, statusText: res.statusText, headers: res.headers };
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (!res.ok) return new Response(res.body.pipeThrough(counter()), head);
  if (type === 'application/json') {
    const text = await new Response(res.body.pipeThrough(counter())).text();
    return new Response(refusedText(text) ?? '', head);
  }
  return new Response(
    res.body
      // (The DOM's typing of TextDecoderStream, which the page's build sees, takes any BufferSource.)
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(checkedEvents())
      .pipeThrough(new TextEncoderStream()),
    head,
  );
};
