import { describe, expect, it } from 'vitest';
import { AgentDefinitionError } from '../../lib/errors/index.ts';
import {
  chatCompletionsAgentRegistration,
  createSwitchboard,
  customAgentRegistration,
  type HostAgentDefinition,
  hostAgentRegistration,
  type ModelAgentDefinition,
  responsesAgentRegistration,
  type SDKAgentDefinition,
  sdkAgentRegistration,
} from '../../lib/index.ts';

const invoke = async () => ({ content: 'ok' });

describe('registering a host agent', () => {
  it('accepts a definition with info.id and invoke, and serves it by id', async () => {
    const server = createSwitchboard();
    const registration = server.registerHostAgent({
      info: { id: 'support', name: 'Support', capabilities: { toolApproval: true } },
      invoke,
    });
    expect(registration).toMatchObject({ kind: 'host', id: 'support' });
    expect(await server.resolveAgent('support', { user: { id: 'u' }, data: {} })).toBe(registration);
    expect(server.defaultAgentId()).toBe('support');
  });

  it.each([
    ['no info', { invoke }],
    ['no info.id', { info: { name: 'x' }, invoke }],
    ['an empty info.id', { info: { id: '' }, invoke }],
    ['an info.id with spaces', { info: { id: 'has space' }, invoke }],
    ['no invoke', { info: { id: 'a' } }],
    ['an invoke that is not a function', { info: { id: 'a' }, invoke: 'nope' }],
    ['a cancel hook that is not a function', { info: { id: 'a' }, invoke, cancel: 42 }],
  ])('throws at registration for %s', (_what, definition) => {
    expect(() => createSwitchboard().registerHostAgent(definition as unknown as HostAgentDefinition)).toThrow(
      AgentDefinitionError,
    );
    expect(() => hostAgentRegistration(definition as unknown as HostAgentDefinition)).toThrow(
      AgentDefinitionError,
    );
  });

  it('keeps the suggestions of info, trimmed, and refuses them past their bounds, naming the field', () => {
    const server = createSwitchboard();
    const registration = server.registerHostAgent({
      info: { id: 'a', name: 'A', capabilities: { x: true }, suggestions: [' Refund order 1042 '] },
      invoke,
    });
    expect(registration.summary).toEqual({ id: 'a', name: 'A', suggestions: ['Refund order 1042'] });
    const refused = (suggestions: unknown) => () =>
      hostAgentRegistration({ info: { id: 'a', suggestions }, invoke } as unknown as HostAgentDefinition);
    expect(refused(['ok', '  '])).toThrow('Host agent "a": info.suggestions.1: must not be empty.');
    expect(refused(['x'.repeat(201)])).toThrow('info.suggestions.0: must be at most 200 characters.');
    expect(refused(Array.from({ length: 13 }, (_, i) => `s${i}`))).toThrow(
      'info.suggestions: must be at most 12.',
    );
    expect(refused('Refund order 1042')).toThrow(AgentDefinitionError);
    expect(refused(Array.from({ length: 12 }, () => 'x'.repeat(200)))).not.toThrow();
  });

  it('refuses a second agent with the same id', () => {
    const server = createSwitchboard();
    server.registerHostAgent({ info: { id: 'a' }, invoke });
    expect(() => server.registerHostAgent({ info: { id: 'a' }, invoke })).toThrow(/already registered/);
  });

  it('asks the per-request registry for an agent that is not registered statically', async () => {
    const tenantAgent = hostAgentRegistration({ info: { id: 'acme-bot' }, invoke });
    const server = createSwitchboard({ agents: (ctx) => (ctx.data.tenant === 'acme' ? [tenantAgent] : []) });
    expect(await server.resolveAgent('acme-bot', { user: { id: 'u' }, data: { tenant: 'acme' } })).toBe(
      tenantAgent,
    );
    expect(
      await server.resolveAgent('acme-bot', { user: { id: 'u' }, data: { tenant: 'other' } }),
    ).toBeUndefined();
    expect(server.defaultAgentId()).toBeUndefined();
  });
});

describe('the registration of every kind', () => {
  const model = { info: { id: 'm' }, baseURL: 'https://models.example/v1', apiKey: 'k', model: 'small' };
  const stream = () => ({}) as never;

  it('builds each kind as its register method does: a host registration, served per request', async () => {
    const kinds = [
      customAgentRegistration({ info: { id: 'c', name: 'C' }, handler: async () => ({ content: 'hi' }) }),
      chatCompletionsAgentRegistration({ ...model, info: { id: 'chat' } }),
      responsesAgentRegistration({ ...model, info: { id: 'responses' } }),
      sdkAgentRegistration({ info: { id: 'sdk' }, stream }),
    ];
    expect(kinds.map((k) => [k.kind, k.id])).toEqual([
      ['host', 'c'],
      ['host', 'chat'],
      ['host', 'responses'],
      ['host', 'sdk'],
    ]);
    expect(kinds[0]?.summary).toEqual({ id: 'c', name: 'C' });
    expect(kinds.every((k) => typeof k.definition.invoke === 'function')).toBe(true);
    expect(typeof kinds[3]?.definition.resolveAction).toBe('function');
    const server = createSwitchboard({ agents: () => kinds });
    expect(await server.resolveAgent('responses', { user: { id: 'u' }, data: {} })).toBe(kinds[2]);
  });

  it.each([
    [
      'a custom agent without a handler',
      () => customAgentRegistration({ info: { id: 'c' } } as never),
      /needs a handler/,
    ],
    [
      'a custom agent with a bad id',
      () => customAgentRegistration({ info: { id: 'a b' }, handler: async () => ({}) }),
      /info.id/,
    ],
    [
      'a model agent without a model',
      () => chatCompletionsAgentRegistration({ ...model, model: '' }),
      /model must be/,
    ],
    [
      'a Responses agent with two keys',
      () => responsesAgentRegistration({ ...model, apiKeyFromSecret: 's' } as ModelAgentDefinition),
      /exactly one of apiKey/,
    ],
    [
      'an SDK agent without agent or stream',
      () => sdkAgentRegistration({ info: { id: 's' } } as SDKAgentDefinition),
      /needs an agent/,
    ],
    ['an SDK agent that is not an object', () => sdkAgentRegistration(null as never), /must be an object/],
    [
      'an SDK agent with a bad budget',
      () => sdkAgentRegistration({ info: { id: 's' }, stream, budget: { sessionUsd: -1 } }),
      /budget/,
    ],
  ])('throws at once for %s, as the register method does', (_what, build, message) => {
    expect(build).toThrow(AgentDefinitionError);
    expect(build).toThrow(message);
  });
});

describe('identity from the authoriser', () => {
  it('takes the user from a JWT sub or a Lambda authoriser, and is anonymous only without an authoriser', async () => {
    const { identityFromAuthorizer } = await import('../../lib/auth/index.ts');
    expect(identityFromAuthorizer({ jwt: { claims: { sub: 'u1', tenant: 'acme' } } })).toEqual({
      user: 'u1',
      data: { tenant: 'acme' },
    });
    expect(identityFromAuthorizer({ lambda: { user: 'u2' } })).toEqual({ user: 'u2', data: {} });
    expect(identityFromAuthorizer(undefined)).toEqual({ user: 'anonymous', data: {} });
    expect(() => identityFromAuthorizer({ jwt: { claims: { email: 'x@example.com' } } })).toThrow(
      /no subject/,
    );
    expect(() => identityFromAuthorizer({ lambda: { role: 'admin' } })).toThrow(/no user/);
  });
});

describe('server-wide feedback', () => {
  it('takes feedback.onFeedback as a function and refuses anything else when the server is built', () => {
    const onFeedback = () => undefined;
    expect(createSwitchboard({ feedback: { onFeedback } }).onFeedback).toBe(onFeedback);
    expect(createSwitchboard().onFeedback).toBeUndefined();
    expect(() => createSwitchboard({ feedback: { onFeedback: 'log' as never } })).toThrow(
      AgentDefinitionError,
    );
  });

  it('refuses an agent whose feedback hook is not a function', () => {
    expect(() =>
      createSwitchboard().registerHostAgent({
        info: { id: 'rated' },
        invoke: async () => ({}),
        feedback: 'yes' as never,
      }),
    ).toThrow(/feedback must be a function/);
  });
});
