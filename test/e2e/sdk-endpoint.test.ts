import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ToolLoopAgent, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createSwitchboard } from '../../lib/index.ts';
import { type ModelScript, type ScriptedModel, startScriptedModel } from '../../sandbox/index.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { api, type LoggedEvent, runEvents, sessionIds, testSandbox } from '../support/sandbox.ts';

/**
 * The AI SDK adapter through a real endpoint: a `ToolLoopAgent` on the SDK's OpenAI-compatible
 * provider, calling the sandbox's scripted model over HTTP, as a team's agent calls vLLM or LiteLLM.
 */
const KEY = 'sk-scripted-sdk-endpoint';
const SCRIPT: ModelScript = {
  rules: [
    {
      match: 'hello',
      on: 'user',
      reply: {
        text: ['Hello', ' from', ' the endpoint.'],
        usage: { promptTokens: 1000, completionTokens: 500 },
      },
    },
    {
      match: 'weather',
      on: 'user',
      reply: { toolCalls: [{ id: 'call_weather', name: 'weather', arguments: { city: 'Paris' } }] },
    },
    { tool: 'weather', reply: { text: 'It is sunny in Paris.' } },
  ],
};

let model: ScriptedModel;
let sandbox: Sandbox;
const sid = sessionIds('sdk-endpoint');
const cities: string[] = [];

beforeAll(async () => {
  model = await startScriptedModel({ script: SCRIPT, apiKey: KEY });
  const app = createSwitchboard({
    pricing: { 'scripted-small': { input: 1, output: 2 } },
  });
  app.registerSDKAgent({
    info: { id: 'sdk-endpoint' },
    agent: async () => {
      const provider = createOpenAICompatible({
        name: 'scripted',
        baseURL: model.baseURL,
        apiKey: KEY,
        includeUsage: true,
      });
      return new ToolLoopAgent({
        model: provider('scripted-small'),
        tools: {
          weather: tool({
            description: 'The weather in a city',
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              cities.push(city);
              return { city, sky: 'sunny' };
            },
          }),
        },
      });
    },
  });
  sandbox = await testSandbox({ app });
});

afterAll(async () => {
  await sandbox?.close();
  await model?.close();
});

type Event = LoggedEvent;

async function turn(id: string, content: string): Promise<Event[]> {
  const res = await api(sandbox.url, 'POST', '/api/chat', {
    session_id: id,
    agent_id: 'sdk-endpoint',
    content,
  });
  expect(res.status, res.text).toBe(202);
  return runEvents(sandbox.url, id, res.json.run_id);
}

const ofType = (events: Event[], type: string) => events.filter((e) => e.type === type).map((e) => e.data);

describe('an AI SDK agent on the OpenAI-compatible provider, against the scripted endpoint', () => {
  it('streams the endpoint’s deltas and prices its usage', async () => {
    const events = await turn(sid('hello'), 'hello');
    expect(
      ofType(events, 'agent.message.delta')
        .map((d) => d.text)
        .join(''),
    ).toBe('Hello from the endpoint.');
    // 1000 × $1 + 500 × $2 per million tokens.
    expect(ofType(events, 'final_response').at(-1)).toMatchObject({
      content: 'Hello from the endpoint.',
      usage: { inputTokens: 1000, outputTokens: 500, model: 'scripted-small', costUsd: 0.002 },
    });
    // The provider's own request: streamed Chat Completions, the key checked by the endpoint.
    expect(model.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      status: 200,
      body: { model: 'scripted-small', stream: true },
    });
  });

  it('runs a backend tool the endpoint called, then streams the answer it gave after the result', async () => {
    const events = await turn(sid('weather'), 'weather in Paris?');
    expect(ofType(events, 'agent.tool_use')).toMatchObject([
      { id: 'call_weather', name: 'weather', args: { city: 'Paris' } },
    ]);
    expect(ofType(events, 'agent.tool_result')).toMatchObject([
      { id: 'call_weather', name: 'weather', ok: true, result: { city: 'Paris', sky: 'sunny' } },
    ]);
    expect(cities).toContain('Paris');
    expect(ofType(events, 'final_response').at(-1)).toMatchObject({ content: 'It is sunny in Paris.' });
  });
});
