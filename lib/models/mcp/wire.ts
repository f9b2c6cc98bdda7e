import { MAX_JSON_DEPTH, tooDeepAt } from '../../contract/json-body.ts';
import { MCP_LIMITS } from './untrusted.ts';

/**
 * The JSON-RPC error code of a message the runtime refused before the SDK saw it: its request fails
 * with it (an `McpError` whose `data.refused` says why).
 */
export const REFUSED_CODE = -32050;

/**
 * Why a message the server sent is refused, or undefined: a `__proto__` key anywhere (seen as
 * `JSON.parse` decodes it, escapes and all: the SDK's schemas copy objects key by key, and would
 * turn such a key into a prototype), or nesting past {@link MAX_JSON_DEPTH}.
 */
function problemOf(text: string): { problem: string; ids: unknown[] } | undefined {
  let proto = false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value) => {
      if (key === '__proto__') proto = true;
      return value;
    });
  } catch {
    return undefined; // Not JSON: the SDK refuses it as such.
  }
  const problem = proto
    ? 'it has a "__proto__" key'
    : tooDeepAt(parsed, MAX_JSON_DEPTH)
      ? `it nests deeper than ${MAX_JSON_DEPTH} levels`
      : undefined;
  if (!problem) return undefined;
  const ids = (Array.isArray(parsed) ? parsed : [parsed]).map((m) => (m as { id?: unknown } | null)?.id);
  return { problem, ids };
}

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

/** A counter of a response's bytes that fails past {@link MCP_LIMITS}.responseBytes. */
function counter(): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > MCP_LIMITS.responseBytes)
        controller.error(
          new Error(`the server's response passed ${MCP_LIMITS.responseBytes / 1024 / 1024} MiB`),
        );
      else controller.enqueue(chunk);
    },
  });
}

/**
 * An event stream's messages checked one event at a time: the `data` of each event a JSON-RPC
 * message, replaced by an error answer when refused (an event with no data is passed as it is).
 */
function checkedEvents(): TransformStream<string, string> {
  let buffer = '';
  const flushEvent = (raw: string): string => {
    const lines = raw.split(/\r?\n/);
    const data = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5));
    if (data.length === 0) return raw;
    const replaced = refusedText(data.join('\n'));
    const kept = lines.filter((l) => !l.startsWith('data:'));
    return replaced === undefined ? kept.join('\n') : [...kept, `data: ${replaced}`].join('\n');
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
        const separator = /\r?\n\r?\n/.exec(buffer.slice(end))?.[0] ?? '\n\n';
        controller.enqueue(`${flushEvent(buffer.slice(0, end))}${separator}`);
        buffer = buffer.slice(end + separator.length);
      }
    },
    flush(controller) {
      if (buffer !== '') controller.enqueue(flushEvent(buffer));
    },
  });
}

/**
 * The `fetch` of a server's transport: every response read through a counter that fails past
 * {@link MCP_LIMITS}.responseBytes, and every JSON-RPC message in it (a JSON body, or each event of
 * an event stream) checked before the SDK parses it ({@link problemOf}). Redirects are left to the
 * SDK's `same-origin` policy: none to another origin is followed.
 */
export const checkedMcpFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.body === null) return res;
  const head = { status: res.status, statusText: res.statusText, headers: res.headers };
  const type = res.headers.get('content-type') ?? '';
  const body = res.body.pipeThrough(counter());
  if (/^\s*text\/event-stream\s*(;|$)/i.test(type))
    return new Response(
      body
        // (The DOM's typing of TextDecoderStream, which the page's build sees, takes any BufferSource.)
        .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
        .pipeThrough(checkedEvents())
        .pipeThrough(new TextEncoderStream()),
      head,
    );
  if (!/^\s*application\/json\s*(;|$)/i.test(type) || !res.ok) return new Response(body, head);
  const text = await new Response(body).text();
  return new Response(refusedText(text) ?? '', head);
};
