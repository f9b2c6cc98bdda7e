import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const url = (path: string) => new URL(path, import.meta.url).href;

/**
 * A function's process, as Lambda starts it: the agents module registers its agents at import,
 * before the JSON Schema checker is loaded (the tests' setup loads it, so this runs in a process of
 * its own). A tool schema ajv cannot use must still fail before any request is served.
 */
const LAMBDA_LIKE = `
const { createSwitchboard } = await import(${JSON.stringify(url('../../lib/index.ts'))});
const { createHttpHandler } = await import(${JSON.stringify(url('../../lib/handlers/index.ts'))});
const { jsonSchemasReady } = await import(${JSON.stringify(url('../../lib/contract/index.ts'))});
const app = createSwitchboard();
app.registerHostAgent({
  info: { id: 'bad' },
  invoke: async () => ({ content: 'ok' }),
  tools: [{ name: 'lookup', parameters: { type: 'object', properties: { q: { $ref: '#/nowhere' } } } }],
});
const out = { registered: true };
const logger = { error() {}, warn() {}, info() {}, debug() {} };
const metrics = { add() {}, async flush() {} };
const handler = createHttpHandler(app, { logger, metrics, tracing: false, settings: {}, clock: Date.now });
const event = { routeKey: 'GET /api/agents', rawPath: '/api/agents', headers: {}, requestContext: { http: { method: 'GET' } } };
const response = await handler(event, {});
out.status = response.statusCode;
out.ready = await jsonSchemasReady().then(() => 'resolved', (error) => error.name + ': ' + error.message);
process.stdout.write(JSON.stringify(out));
`;

describe('the JSON Schema checker, loaded when a function starts up', () => {
  it('defers a tool schema check made before it is loaded, and fails every request until it passes', () => {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', LAMBDA_LIKE],
      {
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'SILENT' },
      },
    );
    const result = JSON.parse(out) as { registered: boolean; status: number; ready: string };
    expect(result.registered).toBe(true);
    expect(result.status).toBe(500);
    expect(result.ready).toMatch(
      /^AgentDefinitionError: Host agent "bad": parameters of tool "lookup" is not a usable JSON schema/,
    );
  });
});
