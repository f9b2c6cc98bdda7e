import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Parser as AsyncApiParser } from '@asyncapi/parser';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ChatRequestSchema, HTTP_ROUTES, WEBSOCKET_ROUTES } from '../../lib/contract/index.ts';
import { asyncApiDocument, openApiDocument } from '../../lib/documents/index.ts';
import { CONTRACT_DOCUMENTS } from '../../sandbox/contract.ts';

type Json = Record<string, unknown>;
const openapi = openApiDocument() as Json & { paths: Record<string, Record<string, Json>>; components: Json };
const asyncapi = asyncApiDocument() as Json & {
  channels: { socket: { messages: Record<string, { name: string; payload: Json }> } };
  operations: Record<string, Json>;
};

/** Every embedded schema of a document, with where it is: `schema` and `payload` values. */
function schemasIn(value: unknown, at = ''): [string, Json][] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    (key === 'schema' || key === 'payload') && item !== null && typeof item === 'object'
      ? [[`${at}/${key}`, item as Json] as [string, Json]]
      : schemasIn(item, `${at}/${key}`),
  );
}

/** An ajv for one document: its component schemas addressable by their `$ref`. */
function ajvFor(doc: Json): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...doc, $id: 'doc' } as Json, 'doc');
  return ajv;
}
const resolved = (schema: Json) => JSON.parse(JSON.stringify(schema).replaceAll('"#/', '"doc#/')) as Json;

describe('the contract documents', () => {
  it('are the committed docs/openapi.json and docs/asyncapi.json (run `npm run contract` after a change)', () => {
    for (const [, { file, build }] of Object.entries(CONTRACT_DOCUMENTS)) {
      const committed = JSON.parse(readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8'));
      expect(committed, `docs/${file} is stale: run npm run contract`).toEqual(build());
    }
  });

  it('describe every HTTP route with its method, and nothing else', () => {
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual([...HTTP_ROUTES].sort());
  });

  it('describe every WebSocket action, and nothing else', () => {
    const sent = Object.values(asyncapi.channels.socket.messages)
      .map((m) => m.name)
      .filter((name) => name.startsWith('assistant_'));
    expect(sent.sort()).toEqual([...WEBSOCKET_ROUTES].sort());
    const sends = Object.entries(asyncapi.operations).filter(([, op]) => op.action === 'send');
    expect(sends.map(([name]) => name).sort()).toEqual([...WEBSOCKET_ROUTES].sort());
    for (const action of WEBSOCKET_ROUTES) {
      const message = Object.values(asyncapi.channels.socket.messages).find((m) => m.name === action);
      expect((message?.payload.properties as Json | undefined)?.action).toEqual({ const: action });
    }
  });

  it('embed schemas that compile as JSON Schema 2020-12', () => {
    for (const doc of [openapi, asyncapi]) {
      const ajv = ajvFor(doc);
      const components = Object.entries(((doc.components as Json).schemas ?? {}) as Record<string, Json>);
      const schemas = [...schemasIn(doc), ...components.map(([name, s]): [string, Json] => [name, s])];
      expect(schemas.length).toBeGreaterThan(10);
      for (const [at, schema] of schemas) {
        expect(ajv.validateSchema(resolved(schema)), `${at}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
        expect(() => ajv.compile(resolved(schema)), at).not.toThrow();
      }
    }
  });

  it('take what the zod schema takes, and refuse what it refuses, for a message', () => {
    const validate = ajvFor(openapi).compile(resolved({ $ref: '#/components/schemas/ChatRequest' }));
    const good = {
      session_id: 's-1',
      content: 'hi',
      metadata: { a: 1 },
      host_context: { view: { name: 'orders', data: { id: 7 } }, background: { sync: { state: 'idle' } } },
    };
    expect(ChatRequestSchema.safeParse(good).success).toBe(true);
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [
      { content: 'hi', colour: 'red' },
      { content: 5 },
      { content: 'hi', metadata: [] },
      { content: 'hi', host_context: { background: { sync: { state: 'idle', extra: 1 } } } },
    ]) {
      expect(ChatRequestSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
      expect(validate(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('give every route its error codes, each under its status from lib/errors', () => {
    for (const [path, methods] of Object.entries(openapi.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const responses = op.responses as Record<string, Json>;
        expect(Object.keys(responses), `${method} ${path}`).toContain('401');
        expect(responses['429']?.['x-error-codes']).toContain('rate_limited');
        expect(responses['500']?.['x-error-codes']).toContain('internal_error');
      }
    }
    const chat = openapi.paths['/api/chat']?.post?.responses as Record<string, Json>;
    expect(chat['402']?.['x-error-codes']).toEqual(['budget_exceeded']);
    expect(chat['422']?.['x-error-codes']).toEqual(['validation_error', 'too_deep']);
    expect(openapi.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    });
  });

  it('validate under swagger-parser, and lint clean under redocly with redocly.yaml (recommended rules)', async () => {
    // swagger-parser dereferences the document it is given in place: it gets a copy.
    await expect(SwaggerParser.validate(structuredClone(openapi) as never)).resolves.toBeDefined();
    const config = await loadConfig({
      configPath: fileURLToPath(new URL('../../redocly.yaml', import.meta.url)),
    });
    const problems = await lintFromString({
      source: JSON.stringify(openapi, null, 2),
      absoluteRef: fileURLToPath(new URL('../../docs/openapi.json', import.meta.url)),
      config,
    });
    const said = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(said).toEqual([]);
  });

  it('parse under the AsyncAPI parser with no diagnostic', async () => {
    const { document, diagnostics } = await new AsyncApiParser().parse(JSON.stringify(asyncapi));
    const said = diagnostics.map((d) => `${d.severity} ${d.code}: ${d.message} at ${d.path.join('.')}`);
    expect(said).toEqual([]);
    expect(document?.operations().length).toBe(Object.keys(asyncapi.operations).length);
  });
});
