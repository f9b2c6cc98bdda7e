import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedMcpFetch, REFUSED_CODE } from '../../lib/models/mcp/wire.ts';

/**
 * The check of every message an MCP server sends, before the SDK parses it (lib/models/mcp/wire.ts),
 * on a real local HTTP server: the body is written in the chunks given, as a hostile server would.
 */
let server: Server;
let url: string;
let next: { type?: string; chunks: string[] } = { chunks: [] };

beforeAll(async () => {
  server = createServer(async (_, res) => {
    res.writeHead(200, next.type === undefined ? {} : { 'content-type': next.type });
    for (const chunk of next.chunks) {
      res.write(chunk);
      // Each chunk its own read on the other side.
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function read(type: string | undefined, chunks: string[]): Promise<string> {
  next = { ...(type !== undefined && { type }), chunks };
  return (await checkedMcpFetch(url)).text();
}

const refusal = (id: number, why: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: { code: REFUSED_CODE, message: 'refused', data: { refused: why } },
  });
const PROTO = 'it has a "__proto__" key';
const polluted = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"a":{"\\u005f_proto__":{"admin":true}}}}`;
const clean = (id: number) => `{"jsonrpc":"2.0","id":${id},"result":{"a":1}}`;

describe('the messages of an MCP server, checked before the SDK parses them', () => {
  it('refuses a JSON body with a __proto__ key (escaped, even), and passes a clean one', async () => {
    expect(await read('application/json', [polluted(1)])).toBe(refusal(1, PROTO));
    expect(await read('Application/JSON; charset=utf-8', [clean(2)])).toBe(clean(2));
  });

  it('refuses a message nested deeper than 64 levels, however deep (no parse recurses into it)', async () => {
    for (const depth of [65, 20_000, 200_000]) {
      const deep = `{"jsonrpc":"2.0","id":3,"result":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
      expect(await read('application/json', [deep]), `${depth}`).toBe(
        refusal(3, 'it nests deeper than 64 levels'),
      );
    }
  });

  it('reads an event stream’s events as the SDK does: CRLF, LF, or a lone CR, split anywhere', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const stream = `event: message${eol}data: ${polluted(4)}${eol}${eol}event: message${eol}data: ${clean(5)}${eol}${eol}`;
      // Every split of the stream in two: an event's end may fall across chunks.
      for (let at = 0; at <= stream.length; at += 7) {
        const out = await read('text/event-stream', [stream.slice(0, at), stream.slice(at)]);
        expect(out, JSON.stringify([eol, at])).toBe(
          `event: message\ndata: ${refusal(4, PROTO)}\n\nevent: message\ndata: ${clean(5)}\n\n`,
        );
      }
    }
  });

  it('joins an event’s data lines as the SDK does before it checks them', async () => {
    const split = ['data: {"jsonrpc":"2.0","id":6,"result":', 'data:{"\\u005f_proto__":{}}}', '', ''].join(
      '\r',
    );
    expect(await read('text/event-stream', [split])).toBe(`data: ${refusal(6, PROTO)}\n\n`);
  });

  it('checks a successful body as an event stream whatever its content type says (the SDK reads a GET so)', async () => {
    for (const type of [undefined, 'text/plain', 'application/octet-stream']) {
      expect(await read(type, [`data: ${polluted(7)}\n\n`]), String(type)).toBe(
        `data: ${refusal(7, PROTO)}\n\n`,
      );
    }
  });

  it('drops a refused notification (nothing to answer) and keeps comments and other fields', async () => {
    const notification = '{"jsonrpc":"2.0","method":"notifications/x","params":{"__proto__":{}}}';
    expect(await read('text/event-stream', [`: ping\nid: 9\ndata: ${notification}\n\n`])).toBe(
      ': ping\nid: 9\n\n',
    );
  });
});
