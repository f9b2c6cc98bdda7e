/**
 * The sandbox's model: an OpenAI-compatible endpoint on a real socket (Chat Completions and Responses,
 * streamed or not) that answers from a script, so that tests and `switchboard dev` run a real model
 * loop offline through the client a team uses in production. It checks what the real endpoints check
 * (the key, the conversation's tool calls and results, the tools, the context window), and records
 * every request and every client that went away mid-answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loopbackOnly } from '../host-check.ts';
import { type AnswerIds, chatCompletion, chatCompletionEvents, readChatRequest } from './chat-completions.ts';
import { EndpointError, invalidRequest } from './errors.ts';
import { estimateTokens, type PlanState, planReply } from './plan.ts';
import { isObject, type Json } from './request.ts';
import { readResponsesRequest, responseEvents, responseObject } from './responses.ts';
import { checkScript } from './script.ts';
import type { PromptTurn, RecordedRequest, ScriptedModel, ScriptedModelOptions } from './types.ts';

/** The largest request body taken (the real endpoints take tens of megabytes of images and files). */
const MAX_BODY_BYTES = 50 * 1024 * 1024;
/** Headers never recorded: they carry the key. */
const SECRET_HEADERS = ['authorization', 'api-key'];

type Api = 'chat' | 'responses';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () =>
      size > MAX_BODY_BYTES
        ? reject(new EndpointError(413, 'The request body is too large.', 'invalid_request_error'))
        : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  // A failure once a stream has begun ends it: the client sees a stream cut short.
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The API a path names: after `/v1` (OpenAI's base URL), `/openai/v1` or an Azure deployment's, or none. */
function apiOf(method: string, path: string): Api | 'models' | undefined {
  const route = path
    .replace(/^\/openai\/deployments\/[^/]+(?=\/)/, '')
    .replace(/^(\/openai)?\/v1(?=\/)/, '')
    .replace(/\/$/, '');
  if (method === 'POST' && route === '/chat/completions') return 'chat';
  if (method === 'POST' && route === '/responses') return 'responses';
  if (method === 'GET' && route === '/models') return 'models';
  return undefined;
}

/** The key a request carries: `Authorization: Bearer …` (OpenAI) or `api-key` (Azure OpenAI). */
function keyOf(req: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const header = req.headers['api-key'];
  return bearer ?? (typeof header === 'string' ? header : undefined);
}

function authorize(req: IncomingMessage, apiKey: string | undefined): void {
  if (apiKey === undefined) return;
  const key = keyOf(req);
  if (key === undefined)
    throw new EndpointError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
    );
  if (key !== apiKey)
    throw new EndpointError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
}

function contextError(api: Api, tokens: number, limit: number): EndpointError {
  return api === 'chat'
    ? invalidRequest(
        `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        'messages',
        'context_length_exceeded',
      )
    : invalidRequest(
        'Your input exceeds the context window of this model. Please adjust your input and try again.',
        'input',
        'context_length_exceeded',
      );
}

/**
 * Starts a scripted model on a free port of 127.0.0.1: `baseURL` is what an OpenAI client takes.
 *
 * @example
 * ```ts
 * const model = await startScriptedModel({
 *   script: { rules: [{ match: 'weather', reply: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] } }] },
 *   apiKey: 'sk-test',
 * });
 * const client = new OpenAI({ baseURL: model.baseURL, apiKey: 'sk-test' });
 * // … model.requests holds every request's body and headers (without the key).
 * await model.close();
 * ```
 */
export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const state: PlanState = { script: checkScript(options.script), uses: [], prompts: [] };
  const requests: RecordedRequest[] = [];
  const disconnects: RecordedRequest[] = [];
  const scriptErrors: string[] = [];
  const pauses = new Set<() => void>();
  let seq = 0;

  /** Waits until the client goes away or `release()` is called; whether the client is still there. */
  function pause(res: ServerResponse, record: RecordedRequest): Promise<boolean> {
    if (res.destroyed) return Promise.resolve(false);
    record.paused = true;
    return new Promise((resolve) => {
      const done = () => {
        pauses.delete(done);
        res.off('close', done);
        record.paused = false;
        resolve(!res.destroyed);
      };
      pauses.add(done);
      res.once('close', done);
    });
  }

  async function answer(
    api: Api,
    body: Json,
    turn: PromptTurn,
    record: RecordedRequest,
    res: ServerResponse,
  ) {
    if (options.contextTokens !== undefined) {
      const tokens = estimateTokens(turn.prompt);
      if (tokens > options.contextTokens) throw contextError(api, tokens, options.contextTokens);
    }
    const planned = planReply(turn, state);
    record.rule = planned.rule;
    if ('error' in planned) throw planned.error;
    const { reply } = planned;
    const ids: AnswerIds = {
      id: `scripted_${record.seq}`,
      created: Math.floor(Date.now() / 1000),
      model: turn.model,
    };
    const headers = { 'x-request-id': `req_scripted_${record.seq}` };
    if (!turn.stream) {
      if (reply.pause && !(await pause(res, record))) return;
      record.status = 200;
      sendJson(
        res,
        200,
        api === 'chat' ? chatCompletion(reply, ids) : responseObject(body, reply, ids, true),
        headers,
      );
      return;
    }
    const { before, after } =
      api === 'chat' ? chatCompletionEvents(reply, ids, turn.includeUsage) : responseEvents(body, reply, ids);
    record.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      ...headers,
    });
    for (const frame of before) res.write(frame);
    if (reply.pause && !(await pause(res, record))) return;
    for (const frame of after) res.write(frame);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://model').pathname;
    const headers = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([name]) => !SECRET_HEADERS.includes(name))
        .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
    );
    const record: RecordedRequest = {
      seq: ++seq,
      method: req.method ?? 'GET',
      path,
      headers,
      body: undefined,
      paused: false,
      disconnected: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (res.writableEnded) return;
      record.disconnected = true;
      disconnects.push(record);
    });
    try {
      const text = await readBody(req);
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      record.body = body;
      authorize(req, options.apiKey);
      const api = apiOf(record.method, path);
      if (api === undefined)
        throw new EndpointError(404, `Invalid URL (${record.method} ${path})`, 'invalid_request_error');
      if (api === 'models') {
        record.status = 200;
        sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'switchboard' }],
        });
        return;
      }
      if (!isObject(body))
        throw invalidRequest(
          "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)",
        );
      const turn = api === 'chat' ? readChatRequest(body) : readResponsesRequest(body);
      await answer(api, body, turn, record, res);
    } catch (error) {
      const failure =
        error instanceof EndpointError
          ? error
          : new EndpointError(500, `The scripted model failed: ${(error as Error).message}`, 'server_error');
      if (failure.code === 'script_error') {
        scriptErrors.push(failure.message);
        options.onScriptError?.(failure.message);
      }
      record.status = failure.status;
      sendJson(res, failure.status, failure.body, {
        'x-request-id': `req_scripted_${record.seq}`,
        ...failure.headers,
      });
    }
  }

  const listenOn = options.host ?? '127.0.0.1';
  // A page that rebinds its name to this machine reaches nothing here (sandbox/host-check.ts).
  const server = loopbackOnly(
    createServer((req, res) => void handle(req, res)),
    [listenOn],
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, listenOn, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    baseURL: `http://${host}:${port}/v1`,
    requests,
    disconnects,
    scriptErrors,
    setScript(script) {
      state.script = checkScript(script);
      state.uses = [];
    },
    release() {
      for (const done of [...pauses]) done();
    },
    async close() {
      for (const done of [...pauses]) done();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
