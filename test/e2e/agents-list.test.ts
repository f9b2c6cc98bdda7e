import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwitchboard, hostAgentRegistration } from '../../lib/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, testSandbox } from '../support/sandbox.ts';

/**
 * `GET /api/agents`: what a host may read of the agents its caller may talk to (id, name,
 * description, suggestions), the registered ones and the per-request registry's, and nothing else.
 */
const invoke = async () => ({ content: 'ok' });
const acmeBot = hostAgentRegistration({
  info: { id: 'acme-bot', name: 'Acme helper', suggestions: ['Open a ticket'] },
  invoke,
});
const app = createSwitchboard({ agents: (ctx) => (ctx.data.tenant === 'acme' ? [acmeBot] : []) });
app.registerHostAgent({
  info: {
    id: 'refunds',
    name: 'Refunds',
    description: 'Refunds an order once you approve.',
    capabilities: { internalFlag: true },
    suggestions: ['  Refund order 1042 ', 'What can you refund?'],
  },
  invoke,
});
app.registerHostAgent({ info: { id: 'plain' }, invoke });
const TOKENS: Record<string, { user: string; tenant?: string }> = {
  alice: { user: 'alice', tenant: 'acme' },
  carol: { user: 'carol', tenant: 'globex' },
};
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await testSandbox({ app, tokens: (token) => TOKENS[token] ?? null });
});
afterAll(async () => {
  await sandbox?.close();
});

const as = (token: string | undefined, path: string) => api(sandbox.url, 'GET', path, undefined, { token });

const REGISTERED = [
  {
    id: 'refunds',
    name: 'Refunds',
    description: 'Refunds an order once you approve.',
    suggestions: ['Refund order 1042', 'What can you refund?'],
  },
  { id: 'plain' },
];

describe('GET /api/agents lists what hosts may read of the agents', () => {
  it('gives the registered agents in order, then the caller’s per-request ones: id, name, description, suggestions only', async () => {
    const alice = await as('alice', '/api/agents');
    expect(alice).toMatchObject({ status: 200 });
    expect(alice.json).toEqual({
      agents: [...REGISTERED, { id: 'acme-bot', name: 'Acme helper', suggestions: ['Open a ticket'] }],
      // Two agents registered: a message must name one.
      default_agent_id: null,
    });
    // Another tenant's registry gives it none of acme's; capabilities stay on the server.
    const carol = await as('carol', '/api/agents');
    expect(carol.json).toEqual({ agents: REGISTERED, default_agent_id: null });
    expect(JSON.stringify(carol.json)).not.toMatch(/internalFlag|capabilities|acme/);
  });

  it('refuses a caller without a token, and a query parameter, naming it', async () => {
    expect(await as(undefined, '/api/agents')).toMatchObject({
      status: 401,
      json: { message: 'Unauthorized' },
    });
    const refused = await as('alice', '/api/agents?all=1');
    expect(refused).toMatchObject({
      status: 422,
      json: { error: { code: 'validation_error', issues: [{ path: ['all'] }] } },
    });
  });

  it('names the only agent as the default one', async () => {
    const single = createSwitchboard();
    single.registerHostAgent({ info: { id: 'solo', suggestions: ['Hello'] }, invoke });
    const alone = await testSandbox({ app: single });
    try {
      const listed = await api(alone.url, 'GET', '/api/agents');
      expect(listed.json).toEqual({
        agents: [{ id: 'solo', suggestions: ['Hello'] }],
        default_agent_id: 'solo',
      });
    } finally {
      await alone.close();
    }
  });
});
