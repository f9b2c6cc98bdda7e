import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChatRequest, parseHostContext } from '../../lib/contract/chat.ts';
import { type Issue, ValidationError } from '../../lib/errors/index.ts';
import { createSwitchboard } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';
import {
  anyJson,
  type Ctx,
  coins,
  hostJson,
  hostKey,
  mutatedContext,
  oversized,
  respell,
  validContext,
} from './arbitraries.ts';

const valid = validContext({ fileIds: true });
const mutated = mutatedContext(valid);

/** Every kind of context: valid ones, mutated ones, ones over a limit, and arbitrary JSON. */
const anyContext: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: valid },
  { weight: 5, arbitrary: mutated.map((m) => m.ctx) },
  { weight: 1, arbitrary: oversized(valid).map((o) => o.ctx) },
  { weight: 1, arbitrary: anyJson },
);

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

type Outcome<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** What a parser did with `input`: a value, or the issues of a ValidationError (anything else fails). */
function outcome<T>(parse: () => T): Outcome<T> {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    expect(error.status).toBe(422);
    expect(error.issues.length).toBeGreaterThan(0);
    return { ok: false, issues: error.issues };
  }
}

const parsed = (input: unknown) => {
  const result = outcome(() => parseHostContext(input));
  if (!result.ok) throw new Error(`rejected: ${JSON.stringify(result.issues)}`);
  return result.value;
};

/** Every key path of a JSON value, in order, so that a renamed, dropped or reordered key shows. */
function keyPaths(value: unknown, path: string[] = [], out: string[][] = []): string[][] {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) keyPaths(v, [...path, `[${i}]`], out);
  } else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      out.push([...path, k]);
      keyPaths(v, [...path, k], out);
    }
  return out;
}

// Each property draws a fresh seed every run, so the suite's runs add up to far more cases than
// one run samples; the counts keep the file within its timeouts on a loaded two-core machine.
describe('the host_context validator', () => {
  it('never throws anything but a ValidationError, whatever host_context it is given', () => {
    fc.assert(
      fc.property(anyContext, (ctx) => {
        outcome(() => parseHostContext(ctx));
        outcome(() => parseChatRequest({ content: 'x', host_context: ctx }));
      }),
      { numRuns: 400 },
    );
  });

  it('names the path of every problem it rejects', () => {
    fc.assert(
      fc.property(anyContext, (ctx) => {
        const alone = outcome(() => parseHostContext(ctx));
        if (!alone.ok && isObject(ctx))
          for (const issue of alone.issues) expect(issue.path.length, issue.message).toBeGreaterThan(0);
        const inChat = outcome(() => parseChatRequest({ content: 'x', host_context: ctx }));
        expect(inChat.ok).toBe(alone.ok);
        if (!inChat.ok)
          for (const issue of inChat.issues) {
            expect(issue.path[0], issue.message).toBe('host_context');
            if (isObject(ctx)) expect(issue.path.length, issue.message).toBeGreaterThan(1);
          }
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every context that breaks the contract, and every one over a limit, at the field', () => {
    fc.assert(
      fc.property(mutated, ({ ctx, mustReject }) => {
        const result = outcome(() => parseHostContext(ctx));
        if (mustReject) expect(result.ok).toBe(false);
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(oversized(valid), ({ ctx, paths, over }) => {
        const result = outcome(() => parseHostContext(ctx));
        expect(result.ok).toBe(!over);
        if (!result.ok) {
          const limitIssues = result.issues.filter((issue) =>
            paths.some((p) => p.every((segment, i) => issue.path[i] === segment)),
          );
          expect(limitIssues.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('accepts every valid context, and parsing its normalised form again changes nothing', () => {
    fc.assert(
      fc.property(valid, (ctx) => {
        const once = parsed(ctx);
        expect(parsed(once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it('reads camelCase field names and page as the same context as snake_case and view', () => {
    fc.assert(
      fc.property(valid, fc.nat(), fc.boolean(), (ctx, bits, all) => {
        const respelled = respell(ctx, coins(bits, all));
        expect(parsed(respelled)).toEqual(parsed(ctx));
        expect(parseChatRequest({ content: 'x', hostContext: respelled }).host_context).toEqual(parsed(ctx));
      }),
      { numRuns: 300 },
    );
  });

  it('passes host-owned keys through verbatim, at any depth', () => {
    const owned = fc.record({
      ctx: valid,
      data: fc.dictionary(hostKey, hostJson, { minKeys: 1, maxKeys: 4, noNullPrototype: true }),
      state: hostJson,
      extensions: fc.dictionary(hostKey, hostJson, { minKeys: 1, maxKeys: 4, noNullPrototype: true }),
      background: fc.dictionary(
        hostKey,
        fc.record({ state: fc.constant('idle'), summary: hostJson }, { noNullPrototype: true }),
        { minKeys: 1, maxKeys: 3, noNullPrototype: true },
      ),
      properties: fc.dictionary(hostKey, fc.constant({ type: 'string' }), {
        minKeys: 1,
        maxKeys: 4,
        noNullPrototype: true,
      }),
      page: fc.boolean(),
    });
    fc.assert(
      fc.property(owned, ({ ctx, data, state, extensions, background, properties, page }) => {
        const { view: _view, ...rest } = ctx;
        const input: Ctx = {
          ...rest,
          [page ? 'page' : 'view']: { name: 'owned', data, state },
          extensions,
          background,
          actions: [{ name: 'owned_action', parameters: { type: 'object', properties } }],
        };
        const out = parsed(input) as Ctx & {
          view: { data: unknown; state: unknown };
          background: Record<string, { summary?: unknown }>;
          actions: { parameters: { properties: unknown } }[];
        };
        const same = (after: unknown, before: unknown) => {
          expect(keyPaths(after)).toEqual(keyPaths(before));
          expect(after).toEqual(before);
        };
        same(out.view.data, data);
        same(out.view.state, state);
        same(out.extensions, extensions);
        same(out.background, background);
        for (const [name, entry] of Object.entries(background))
          same(out.background[name]?.summary, entry.summary);
        same(out.actions[0]?.parameters.properties, properties);
      }),
      { numRuns: 300 },
    );
  });
});

describe('POST /api/chat with a host_context', () => {
  let sandbox: Sandbox;
  let sessions = 0;

  beforeAll(async () => {
    const app = createSwitchboard();
    app.registerHostAgent({ info: { id: 'noop' }, invoke: async () => ({}) });
    sandbox = await testSandbox({ app });
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  /** Contexts that reach HTTP: file ids are left out (an unknown one is a 422 of its own). */
  const httpValid = validContext();
  const httpContext: fc.Arbitrary<unknown> = fc.oneof(
    { weight: 3, arbitrary: httpValid },
    { weight: 4, arbitrary: mutatedContext(httpValid).map((m) => m.ctx) },
    { weight: 1, arbitrary: oversized(httpValid).map((o) => o.ctx) },
    { weight: 1, arbitrary: anyJson },
  );

  async function send(ctx: unknown) {
    const sessionId = `prop-${process.pid}-${sessions++}`;
    // What the server receives is the JSON of the context.
    const wire: unknown = JSON.parse(JSON.stringify(ctx));
    const expected = outcome(() => parseHostContext(wire));
    const res = await api(sandbox.url, 'POST', '/api/chat', {
      session_id: sessionId,
      agent_id: 'noop',
      content: 'x',
      host_context: wire,
    });
    expect([202, 422], res.text).toContain(res.status);
    expect(res.status, res.text).toBe(expected.ok ? 202 : 422);
    if (res.status === 422) {
      const issues = (res.json.error as { issues?: Issue[] } | undefined)?.issues ?? [];
      expect(issues.length, res.text).toBeGreaterThan(0);
      for (const issue of issues) {
        expect(issue.path[0], res.text).toBe('host_context');
        if (isObject(wire)) expect(issue.path.length, res.text).toBeGreaterThan(1);
      }
      return;
    }
    if (!expected.ok) return;
    const { attachments: _attachments, ...stored } = expected.value;
    const session = await api(sandbox.url, 'GET', `/api/sessions/${sessionId}`);
    expect(session.status, session.text).toBe(200);
    expect(session.json.host_context).toEqual(stored);
  }

  // Each request is a round trip through the gateway, the table and (on a 202) a worker turn, so
  // this property samples far fewer contexts than the in-process ones above, which check the same
  // validator on many more: here it is the wire (JSON in, status and stored context out) under test.
  it('never answers 500, whatever host_context it is sent; a 422 names host_context paths and a 202 stores the normalised context', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(httpContext, { minLength: 1, maxLength: 2 }), async (batch) => {
        await Promise.all(batch.map(send));
      }),
      { numRuns: 50 },
    );
  }, 60_000);
});

/** Inputs that once broke the validator or the store, pinned with minimal examples. */
describe('inputs that once broke the runtime', () => {
  let sandbox: Sandbox;

  beforeAll(async () => {
    const app = createSwitchboard();
    app.registerHostAgent({ info: { id: 'noop' }, invoke: async () => ({}) });
    sandbox = await testSandbox({ app });
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  const status = async (host_context: unknown) =>
    (
      await api(sandbox.url, 'POST', '/api/chat', {
        session_id: `known-${Math.random().toString(36).slice(2)}`,
        agent_id: 'noop',
        content: 'x',
        host_context,
      })
    ).status;

  it('keeps a host key named __proto__ inside view.data', () => {
    const ctx = JSON.parse('{"view":{"name":"a","data":{"__proto__":{"x":1},"b":2}}}');
    expect(Object.keys(parsed(ctx).view?.data ?? {})).toEqual(['__proto__', 'b']);
  });

  it('rejects an unknown field named __proto__ in host', () => {
    const ctx = JSON.parse('{"host":{"__proto__":{}}}');
    expect(outcome(() => parseHostContext(ctx)).ok).toBe(false);
  });

  it('names an unknown top-level field toString as it was sent', () => {
    const result = outcome(() => parseHostContext({ toString: 1 }));
    expect(result.ok ? [] : result.issues.map((i) => i.path)).toEqual([['toString']]);
  });

  it('answers 202 for a host key named constructor in view.data', async () => {
    expect(await status({ view: { name: 'a', data: { constructor: { a: 1 } } } })).toBe(202);
  });

  it('answers 202 for a number above 2^53 in view.data', async () => {
    expect(await status({ view: { name: 'a', data: { n: 1e16 } } })).toBe(202);
  });

  it('answers 202 for a tiny number in view.state', async () => {
    expect(await status({ view: { name: 'a', state: 1e-200 } })).toBe(202);
  });

  it('answers 202 or 422, not 500, for action parameters of 450,000 characters', async () => {
    const parameters = { type: 'object', description: 'x'.repeat(450_000) };
    expect([202, 422]).toContain(await status({ actions: [{ name: 'a', parameters }] }));
  });
});
