import OpenAI, { APIError, AzureOpenAI } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  checkScript,
  type ModelScript,
  type ScriptedModel,
  startScriptedModel,
} from '../../sandbox/index.ts';
import { queued } from '../support/wait.ts';

const KEY = 'sk-scripted-test-key';

/** The rules every test here runs against. */
const SCRIPT: ModelScript = {
  rules: [
    { match: 'hello', reply: { text: 'Hello there, how can I help?', usage: { cachedTokens: 3 } } },
    {
      match: /weather in (\w+)/i,
      on: 'user',
      reply: {
        text: ['Let me ', 'check.'],
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }],
      },
    },
    { tool: 'get_weather', reply: { text: 'It is 21 degrees in Paris.' } },
    { match: 'bad arguments', reply: { toolCalls: [{ name: 'get_weather', arguments: '{"city": "Par' }] } },
    { match: 'hallucinate', reply: { toolCalls: [{ name: 'launch_rockets' }] } },
    { match: 'busy', times: 2, error: { status: 429, message: 'Rate limit reached.', retryAfter: 0 } },
    { match: 'busy', reply: { text: 'Finally.' } },
    { match: 'choose', reply: { text: 'I will just talk.' } },
    {
      match: 'choose',
      reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, id: 'call_fixed' }] },
    },
    { match: 'long story', reply: { text: 'Once upon a time', pauseUntilAborted: true } },
  ],
};

const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string' } },
      required: ['city'],
    },
  },
};

const RESPONSES_WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: WEATHER_TOOL.function.parameters,
  strict: false,
};

/** The error a call fails with. */
async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('the scripted model, through the official openai client', () => {
  let model: ScriptedModel;
  let client: OpenAI;
  beforeAll(async () => {
    model = await startScriptedModel({ script: SCRIPT, apiKey: KEY, contextTokens: 2000 });
    client = new OpenAI({ baseURL: model.baseURL, apiKey: KEY, maxRetries: 2 });
  });
  afterAll(() => model.close());
  afterEach(() => model.setScript(SCRIPT));

  it('streams a chat completion’s text, with a usage chunk when asked for', async () => {
    const stream = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hello!' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas).toEqual(['Hello ', 'there, ', 'how ', 'can ', 'I ', 'help?']);
    expect(finish).toBe('stop');
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBe(Math.ceil('Hello there, how can I help?'.length / 4));
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(3);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  it('answers a chat completion not streamed', async () => {
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      ],
    });
    expect(completion.choices[0]?.message).toMatchObject({
      role: 'assistant',
      content: 'Hello there, how can I help?',
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.model).toBe('scripted');
  });

  it('streams tool calls that the client’s helpers put together, and the result goes back to the model', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Paris?' },
    ];
    const stream = client.chat.completions.stream({
      model: 'scripted',
      messages,
      tools: [WEATHER_TOOL],
      stream_options: { include_usage: true },
    });
    const argumentDeltas: string[] = [];
    stream.on('tool_calls.function.arguments.delta', (event) => argumentDeltas.push(event.arguments_delta));
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(message?.content).toBe('Let me check.');
    const call = message?.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call?.id).toBe('call_1');
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : '')).toEqual({
      city: 'Paris',
      unit: 'celsius',
    });
    // The arguments came in several pieces.
    expect(argumentDeltas.length).toBeGreaterThan(1);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);

    const next = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        ...messages,
        message as OpenAI.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: call?.id ?? '', content: '{"degrees": 21}' },
      ],
      tools: [WEATHER_TOOL],
    });
    expect(next.choices[0]?.message.content).toBe('It is 21 degrees in Paris.');
    // The second prompt starts as the first: a prompt cache holds that much of it.
    expect(next.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(10);
  });

  it('gives tool calls ids that count the conversation’s calls, or the script’s own', async () => {
    const ask = async (messages: OpenAI.ChatCompletionMessageParam[]) => {
      const completion = await client.chat.completions.create({
        model: 'scripted',
        messages,
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
      });
      return completion.choices[0]?.message;
    };
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: 'weather in Rome' };
    const first = await ask([question]);
    expect(first?.tool_calls?.[0]?.id).toBe('call_1');
    // The same conversation, the same id.
    expect((await ask([question]))?.tool_calls?.[0]?.id).toBe('call_1');
    const second = await ask([
      question,
      first as OpenAI.ChatCompletionMessageParam,
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'user', content: 'and the weather in Oslo?' },
    ]);
    expect(second?.tool_calls?.[0]?.id).toBe('call_2');
    expect((await ask([{ role: 'user', content: 'choose' }]))?.tool_calls?.[0]?.id).toBe('call_fixed');
  });

  it('honours tool_choice: none skips rules that call tools, required skips rules that do not', async () => {
    const text = async (tool_choice: OpenAI.ChatCompletionToolChoiceOption) => {
      const completion = await client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'choose' }],
        tools: [WEATHER_TOOL],
        tool_choice,
      });
      return completion.choices[0]?.message;
    };
    expect((await text('none'))?.content).toBe('I will just talk.');
    expect((await text('auto'))?.content).toBe('I will just talk.');
    expect((await text('required'))?.tool_calls?.[0]?.id).toBe('call_fixed');
    expect((await text({ type: 'function', function: { name: 'get_weather' } }))?.tool_calls?.[0]?.id).toBe(
      'call_fixed',
    );
  });

  it('matches the user’s words without their <host_context> block, and the block with `context`', async () => {
    model.setScript({
      rules: [
        { match: 'closed', context: 'Filter: closed', reply: { text: 'They are on the page already.' } },
        { match: /^show closed issues$/i, reply: { toolCalls: [{ name: 'get_weather', arguments: {} }] } },
        { tool: 'get_weather', context: 'Filter: closed', reply: { text: 'Now the page shows them.' } },
      ],
    });
    const context = (filter: string) =>
      `<host_context>\nView: issues\nFilter: ${filter}\n</host_context>\n\n`;
    const ask = (messages: OpenAI.ChatCompletionMessageParam[]) =>
      client.chat.completions
        .create({ model: 'scripted', messages, tools: [WEATHER_TOOL] })
        .then((c) => c.choices[0]?.message);
    expect((await ask([{ role: 'user', content: `${context('closed')}Show closed issues` }]))?.content).toBe(
      'They are on the page already.',
    );
    const asked: OpenAI.ChatCompletionMessageParam = {
      role: 'user',
      content: `${context('open')}Show closed issues`,
    };
    const call = await ask([asked]);
    expect(call?.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather' } });
    // A continuation: the tool's result, then (in a user message of its own) the context it left.
    const answer = await ask([
      asked,
      call as OpenAI.ChatCompletionMessageParam,
      { role: 'tool', tool_call_id: call?.tool_calls?.[0]?.id ?? '', content: 'done' },
      { role: 'user', content: context('closed') },
    ]);
    expect(answer?.content).toBe('Now the page shows them.');
  });

  it('sends malformed tool arguments when the script says so', async () => {
    const completion = await client.chat.completions
      .stream({
        model: 'scripted',
        messages: [{ role: 'user', content: 'bad arguments' }],
        tools: [WEATHER_TOOL],
      })
      .finalChatCompletion();
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.arguments).toBe('{"city": "Par');
  });

  it('reports a scripted call of a tool the request does not offer as the script’s mistake', async () => {
    const before = model.scriptErrors.length;
    const error = await failure(
      client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hallucinate' }],
        tools: [WEATHER_TOOL],
      }),
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain(
      'rule 5 (match "hallucinate") calls the tool "launch_rockets"',
    );
    expect((error as APIError).message).toContain('its tools: get_weather');
    expect(model.scriptErrors.slice(before)).toHaveLength(1);

    model.setScript({ rules: [{ reply: { toolCalls: [{ name: 'launch_rockets', unoffered: true }] } }] });
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'hallucinate on purpose' }],
      tools: [WEATHER_TOOL],
    });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'launch_rockets' },
    });
  });

  it('answers 429 with retry-after to the first attempts, and the client’s own retry gets the answer', async () => {
    const from = model.requests.length;
    const completion = await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'are you busy?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Finally.');
    const attempts = model.requests.slice(from);
    expect(attempts.map((r) => r.status)).toEqual([429, 429, 200]);
    // The client says which retry it is.
    expect(attempts.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);

    model.setScript({ rules: [{ error: { status: 429, message: 'Rate limit reached.', retryAfter: 0 } }] });
    const error = await failure(
      client.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'busy' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as APIError).headers?.get('retry-after')).toBe('0');
  });

  it('refuses a prompt longer than the context window with context_length_exceeded', async () => {
    const error = await failure(
      client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: `hello ${'word '.repeat(2000)}` }],
      }),
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).code).toBe('context_length_exceeded');
    expect((error as APIError).message).toContain('maximum context length is 2000 tokens');
  });

  it('refuses a wrong or missing key with 401, and never records the key', async () => {
    const wrong = new OpenAI({ baseURL: model.baseURL, apiKey: 'sk-wrong', maxRetries: 0 });
    const error = await failure(
      wrong.chat.completions.create({ model: 'scripted', messages: [{ role: 'user', content: 'hello' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as APIError).message).not.toContain('sk-wrong');
    const missing = await fetch(`${model.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(missing.status).toBe(401);
    expect(JSON.stringify(model.requests)).not.toContain(KEY);
    expect(JSON.stringify(model.requests)).not.toContain('sk-wrong');
    expect(model.requests.at(-1)?.headers['content-type']).toBe('application/json');
  });

  it('refuses the conversations the real endpoint refuses', async () => {
    const call = {
      id: 'call_a',
      type: 'function' as const,
      function: { name: 'get_weather', arguments: '{}' },
    };
    const status = async (body: object) =>
      ((await failure(client.chat.completions.create(body as never))) as APIError).message;
    // A tool call left unanswered.
    expect(
      await status({
        model: 'scripted',
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: null, tool_calls: [call] },
          { role: 'user', content: 'again' },
        ],
        tools: [WEATHER_TOOL],
      }),
    ).toContain('did not have response messages: call_a');
    // A tool result without its call.
    expect(
      await status({ model: 'scripted', messages: [{ role: 'tool', tool_call_id: 'call_b', content: '1' }] }),
    ).toContain("messages with role 'tool' must be a response");
    // A content part the API does not know.
    expect(
      await status({
        model: 'scripted',
        messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }],
      }),
    ).toContain("Invalid value: \"video\". Supported values are: 'text', 'image_url', 'input_audio', 'file'");
    // tool_choice naming a function that is not offered.
    expect(
      await status({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [WEATHER_TOOL],
        tool_choice: { type: 'function', function: { name: 'other' } },
      }),
    ).toContain('no function named "other"');
  });

  it('streams a Responses API answer: text, a function call, and usage', async () => {
    const stream = client.responses.stream({
      model: 'scripted',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris?' }] }],
      tools: [RESPONSES_WEATHER_TOOL],
    });
    const types: string[] = [];
    const textDeltas: string[] = [];
    const argumentDeltas: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    stream.on('response.output_text.delta', (event) => textDeltas.push(event.delta));
    stream.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_item.added');
    expect(types).toContain('response.function_call_arguments.done');
    expect(textDeltas).toEqual(['Let me ', 'check.']);
    expect(argumentDeltas.join('')).toBe('{"city":"Paris","unit":"celsius"}');
    expect(response.output_text).toBe('Let me check.');
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' });
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect(response.usage?.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(0);

    // The function's output goes back, and the model answers from it.
    const next = await client.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        {
          type: 'function_call',
          call_id: call?.type === 'function_call' ? call.call_id : '',
          name: 'get_weather',
          arguments: '{}',
        },
        {
          type: 'function_call_output',
          call_id: call?.type === 'function_call' ? call.call_id : '',
          output: '{"degrees": 21}',
        },
      ],
      tools: [RESPONSES_WEATHER_TOOL],
    });
    expect(next.output_text).toBe('It is 21 degrees in Paris.');
    expect(next.status).toBe('completed');
  });

  it('streams Responses events with create({ stream: true }), numbered in order', async () => {
    const stream = await client.responses.create({ model: 'scripted', input: 'hello', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const completed = events.at(-1);
    expect(completed?.type).toBe('response.completed');
    if (completed?.type !== 'response.completed') return;
    expect(completed.response.usage?.input_tokens_details.cached_tokens).toBe(3);
    expect(completed.response.output[0]).toMatchObject({
      type: 'message',
      content: [{ type: 'output_text', text: 'Hello there, how can I help?' }],
    });
  });

  it('refuses a function output without its call, and a context too long, on the Responses API', async () => {
    const orphan = (await failure(
      client.responses.create({
        model: 'scripted',
        input: [{ type: 'function_call_output', call_id: 'call_z', output: '1' }],
      }),
    )) as APIError;
    expect(orphan.status).toBe(400);
    expect(orphan.message).toContain('No tool call found for function call output with call_id call_z');
    const long = (await failure(
      client.responses.create({ model: 'scripted', input: `hello ${'word '.repeat(2000)}` }),
    )) as APIError;
    expect(long.status).toBe(400);
    expect(long.code).toBe('context_length_exceeded');
  });

  it('records a client that aborts mid-stream as a disconnect', async () => {
    const from = model.requests.length;
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'scripted', messages: [{ role: 'user', content: 'Tell me a long story' }], stream: true },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) {
        seen.push(chunk.choices[0]?.delta.content ?? '');
        if (seen.join('') === 'Once upon a time') controller.abort();
      }
    })();
    // The client's stream ends quietly once its request is aborted.
    await reading;
    expect(seen.join('')).toBe('Once upon a time');
    const request = model.requests[from];
    await expect.poll(() => request?.disconnected, queued('the model to see the disconnect')).toBe(true);
    expect(model.disconnects).toContain(request);
    expect(request?.paused).toBe(false);
  });

  it('records a Responses stream the client aborts as a disconnect', async () => {
    const from = model.requests.length;
    const stream = client.responses.stream({ model: 'scripted', input: 'Tell me a long story' });
    stream.on('response.output_text.delta', (event) => {
      if (event.snapshot === 'Once upon a time') stream.abort();
    });
    await stream.done().catch(() => undefined);
    await expect
      .poll(() => model.requests[from]?.disconnected, queued('the model to see the disconnect'))
      .toBe(true);
    expect(model.disconnects).toContain(model.requests[from]);
  });

  it('says when no rule fits tool_choice, or a rule makes parallel calls that are not allowed', async () => {
    const required = (await failure(
      client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'hello' }],
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
      }),
    )) as APIError;
    expect(required.status).toBe(400);
    expect(required.code).toBe('script_error');
    expect(required.message).toContain(
      "no rule fits this request's tool_choice (required): the default reply answers without a tool call",
    );
    model.setScript({
      rules: [{ reply: { toolCalls: [{ name: 'get_weather' }, { name: 'get_weather' }] } }],
    });
    const parallel = (await failure(
      client.chat.completions.create({
        model: 'scripted',
        messages: [{ role: 'user', content: 'both' }],
        tools: [WEATHER_TOOL],
        parallel_tool_calls: false,
      }),
    )) as APIError;
    expect(parallel.message).toContain(
      'rule 1 makes 2 tool calls, and this request sets parallel_tool_calls to false',
    );
  });

  it('takes Azure OpenAI’s deployment paths and api-key header', async () => {
    const azure = new AzureOpenAI({
      endpoint: new URL(model.baseURL).origin,
      apiKey: KEY,
      apiVersion: '2024-10-21',
      deployment: 'gpt-scripted',
    });
    const completion = await azure.chat.completions.create({
      model: 'gpt-scripted',
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello there, how can I help?');
    expect(model.requests.at(-1)?.path).toBe('/openai/deployments/gpt-scripted/chat/completions');
    expect(model.requests.at(-1)?.headers['api-key']).toBeUndefined();
  });

  it('checks a script when it is given, naming the field at fault', async () => {
    expect(() => checkScript({ rules: [{ match: 'x' }] })).toThrow(
      'Invalid model script: rules.0: a rule has a reply or an error (one of them)',
    );
    expect(() => checkScript({ rules: [{ match: { regex: '(' }, reply: { text: 'x' } }] })).toThrow(
      'rules.0.match',
    );
    expect(() => checkScript({ default: { text: 'x', toolCalls: [{ arguments: {} }] } })).toThrow(
      'default.toolCalls.0.name',
    );
    await expect(
      startScriptedModel({ script: { rules: [{ reply: { txt: 'x' } }] } as never }),
    ).rejects.toThrow('rules.0.reply');
  });

  it('goes on with a paused answer once released', async () => {
    const from = model.requests.length;
    const answer = client.responses.create({ model: 'scripted', input: 'a long story please' });
    await expect.poll(() => model.requests[from]?.paused, queued('the answer to pause')).toBe(true);
    model.release();
    expect((await answer).output_text).toBe('Once upon a time');
    expect(model.requests[from]).toMatchObject({ paused: false, disconnected: false, status: 200 });
  });
});
