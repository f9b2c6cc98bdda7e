import { describe, expect, it } from 'vitest';
import {
  chatCompletionsAgentRegistration,
  createSwitchboard,
  type ModelAgentDefinition,
  responsesAgentRegistration,
} from '../../lib/index.ts';
import { mcpServersProblem, modelToolName } from '../../lib/models/mcp/config.ts';
import { listedTool, MCP_LIMITS, toolAnswer, untrustedProblem } from '../../lib/models/mcp/untrusted.ts';
import { PIXEL_PNG } from '../support/mcp.ts';

const agent = (mcpServers: unknown): ModelAgentDefinition => ({
  info: { id: 'mcp-check' },
  baseURL: 'http://127.0.0.1:1/v1',
  apiKey: 'k',
  model: 'm',
  tools: [{ name: 'docs__search', execute: () => null }],
  mcpServers: mcpServers as ModelAgentDefinition['mcpServers'],
});

describe('mcpServers of a model agent, checked at registration', () => {
  it.each([
    [
      { name: 'has space', url: 'http://x/mcp' },
      'mcpServers.0.name: must be 1-32 letters, digits, "_" or "-"',
    ],
    [
      { name: 'a__b', url: 'http://x/mcp' },
      'mcpServers.0.name: must not contain "__", nor begin or end with "_"',
    ],
    [
      { name: 'a_', url: 'http://x/mcp' },
      'mcpServers.0.name: must not contain "__", nor begin or end with "_"',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', tools: ['search'], needsApproval: ['publish'] },
      'mcpServers.0.needsApproval: "publish" is not in tools, so it would never be offered',
    ],
    [
      { name: 'docs', url: 'ftp://x/mcp' },
      'mcpServers.0.url: must be an http(s) URL without credentials in it',
    ],
    [
      { name: 'docs', url: 'https://u:p@x/mcp' },
      'mcpServers.0.url: must be an http(s) URL without credentials in it',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', timeoutMs: 0 },
      'mcpServers.0.timeoutMs: Too small: expected number to be >=100',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', headers: { 'bad header': 'v' } },
      'mcpServers.0.headers.bad header: must be a header name',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', tools: [] },
      'mcpServers.0.tools: Too small: expected array to have >=1 items',
    ],
    [{ name: 'docs', url: 'http://x/mcp', secret: 'x' }, 'mcpServers.0: Unrecognized key: "secret"'],
    [
      { name: 'docs', url: 'http://x/mcp', headers: { a: 'b' }, headersFromSecret: 's' },
      'mcpServers.0: give headers or headersFromSecret, not both',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', tools: ['search'] },
      'mcpServers.0.tools: "docs__search" is also one of the agent\'s tools',
    ],
    [
      { name: 'docs', url: 'http://x/mcp', tools: ['x'.repeat(60)] },
      `mcpServers.0.tools: "docs__${'x'.repeat(60)}" is longer than a tool name may be (64 characters)`,
    ],
  ])('refuses %j', (server, problem) => {
    expect(mcpServersProblem([server], ['docs__search'])).toBe(problem);
    for (const register of [
      (d: ModelAgentDefinition) => createSwitchboard().registerChatCompletionsAgent(d),
      (d: ModelAgentDefinition) => createSwitchboard().registerResponsesAgent(d),
      chatCompletionsAgentRegistration,
      responsesAgentRegistration,
    ])
      expect(() => register(agent([server]))).toThrow(`Model agent "mcp-check": ${problem}.`);
  });

  it('refuses two servers of one name, and anything but an array', () => {
    const docs = { name: 'docs', url: 'http://x/mcp' };
    expect(mcpServersProblem([docs, docs], [])).toBe('mcpServers.1.name: "docs" is given twice');
    expect(mcpServersProblem({}, [])).toBe('mcpServers must be an array');
  });

  it('takes a server as the issue’s example gives it, on both wires and the per-request builders', () => {
    const servers = [
      { name: 'kb', url: 'https://mcp.example.com/mcp', headersFromSecret: 'kb/mcp', tools: ['search'] },
      {
        name: 'crm-prod',
        url: 'http://10.0.0.2:8080/mcp',
        headers: { authorization: 'Bearer t' },
        needsApproval: true,
      },
    ];
    const app = createSwitchboard();
    expect(() => app.registerChatCompletionsAgent(agent(servers))).not.toThrow();
    expect(() => app.registerResponsesAgent({ ...agent(servers), info: { id: 'r' } })).not.toThrow();
  });

  it('maps a tool’s name into the tool-name rule, and says when it cannot fit', () => {
    expect(modelToolName('docs', 'page.count')).toBe('docs__page_count');
    expect(modelToolName('docs', 'ünïcode tool')).toBe('docs___n_code_tool');
    expect(modelToolName('docs', 'x'.repeat(58))).toBe(`docs__${'x'.repeat(58)}`);
    expect(modelToolName('docs', 'x'.repeat(59))).toBeUndefined();
  });
});

describe('what an MCP server sends, checked as a model endpoint’s reply is', () => {
  it('refuses a __proto__ key at any depth, and nesting past 64 levels', () => {
    expect(untrustedProblem(JSON.parse('{"a":[{"b":{"__proto__":{"polluted":true}}}]}'))).toBe(
      'it has a "__proto__" key',
    );
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(untrustedProblem(deep)).toBe('it nests deeper than 64 levels');
    expect(untrustedProblem({ constructor: 'a word', prototype: 1 })).toBeUndefined();
  });

  it('leaves out a tool past the list’s bounds, with why', () => {
    const schema = { type: 'object' };
    expect(listedTool({ name: 'x'.repeat(129), inputSchema: schema })).toBe(
      'its name is longer than 128 characters',
    );
    expect(listedTool({ name: 't', description: 'd'.repeat(8193), inputSchema: schema })).toBe(
      'its description is longer than 8192 characters',
    );
    expect(listedTool({ name: 't', inputSchema: JSON.parse('{"type":"object","__proto__":{}}') })).toBe(
      'its input schema is refused: it has a "__proto__" key',
    );
    const big = { type: 'object', description: 'd'.repeat(MCP_LIMITS.schemaBytes) };
    expect(listedTool({ name: 't', inputSchema: big })).toBe('its input schema is larger than 64 KiB');
    expect(listedTool({ name: 't', description: 'ok', inputSchema: schema })).toEqual({
      name: 't',
      description: 'ok',
      inputSchema: schema,
    });
  });

  it('drops the regular expressions of an input schema where they are keywords, and nothing else', () => {
    const schema = {
      type: 'object',
      properties: {
        pattern: { type: 'string', pattern: '^(a+)+$' },
        tags: { type: 'array', items: { type: 'string', pattern: '^x' } },
        either: { anyOf: [{ type: 'string', pattern: 'y' }, { type: 'number' }] },
      },
      patternProperties: { '^(a+)+$': { type: 'string' } },
      $defs: { id: { type: 'string', pattern: 'z' } },
    };
    expect(listedTool({ name: 't', inputSchema: schema })).toEqual({
      name: 't',
      inputSchema: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          tags: { type: 'array', items: { type: 'string' } },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
        },
        $defs: { id: { type: 'string' } },
      },
    });
  });

  it('maps a result’s content to what the model reads and what the host sees', () => {
    const answer = toolAnswer({
      content: [
        { type: 'text', text: 'one' },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'docs://x', name: 'X' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'image', data: 'AAAA', mimeType: 'image/svg+xml' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
      ],
    });
    expect(answer.text).toBe(
      [
        'one',
        '[Resource <file:///a.txt>]\ninside',
        '[Resource <file:///b.bin>: binary, not shown]',
        '[Resource link: X <docs://x>]',
        '[Audio (audio/wav), which cannot be played here.]',
        '[An image (image/svg+xml) that cannot be shown.]',
        // Bytes that are not a PNG: an endpoint would refuse the request, and the turn fail with it.
        '[An image (image/png) that cannot be shown.]',
        '[An image (image/png): shown to you in the next message.]',
      ].join('\n'),
    );
    expect(answer.images).toEqual([{ type: 'image', mediaType: 'image/png', data: PIXEL_PNG }]);
    expect(answer.failed).toBe(false);
    expect(answer.data).toMatchObject({ content: expect.arrayContaining([{ type: 'text', text: 'one' }]) });
  });

  it('gives structured content as the data (and the text when there is no other), isError as a failure', () => {
    expect(toolAnswer({ content: [], structuredContent: { a: 1 } })).toEqual({
      text: '{"a":1}',
      images: [],
      failed: false,
      data: { a: 1 },
    });
    expect(toolAnswer({ content: [{ type: 'text', text: 'no' }], isError: true })).toMatchObject({
      text: 'no',
      failed: true,
    });
  });

  it('cuts a long text, hands at most four images, and refuses a result with a __proto__ key', () => {
    const long = toolAnswer({ content: [{ type: 'text', text: 'é'.repeat(MCP_LIMITS.resultTextBytes) }] });
    expect(long.text).toMatch(/\n\[The result was cut here: it passed 256 KiB\.\]$/);
    expect(Buffer.byteLength(long.text)).toBeLessThan(MCP_LIMITS.resultTextBytes + 100);
    const image = { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' };
    expect(toolAnswer({ content: Array(6).fill(image) }).images).toHaveLength(4);
    expect(toolAnswer(JSON.parse('{"content":[],"structuredContent":{"__proto__":{"x":1}}}'))).toMatchObject({
      failed: true,
      text: 'The tool\'s result is refused: it has a "__proto__" key.',
    });
  });
});
