import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostAgentInput, HostAgentIO, HostEvent, HostResult } from '../../lib/contract/index.ts';
import { invokeModel } from '../../lib/models/loop.ts';
import type { ModelApi, ModelTool } from '../../lib/models/types.ts';

/** What the raw endpoint answers one request with: a status, a content type and the body as written. */
export interface RawAnswer {
  status?: number;
  type?: string;
  body: string;
}

/** An endpoint that answers exactly what a test writes, byte for byte: no parser of ours between. */
export interface RawEndpoint {
  baseURL: string;
  /** The answer of the next requests. */
  answer: RawAnswer;
  /** How many requests it was sent. */
  requests: number;
  close(): Promise<void>;
}

export async function startRawEndpoint(): Promise<RawEndpoint> {
  const endpoint = { answer: { body: '' }, requests: 0 } as RawEndpoint;
  const server = http.createServer((req, res) => {
    endpoint.requests++;
    req.resume();
    req.on('end', () => {
      const { status = 200, type = 'text/event-stream', body } = endpoint.answer;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  endpoint.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return endpoint;
}

/** Server-sent events of each value as JSON (a string as it is), then `[DONE]` unless told not to. */
export const sse = (chunks: unknown[], done = true) =>
  `${chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`;

/** What one turn of the model loop did: its result or its error, and its events. */
export interface ModelTurn {
  result?: HostResult;
  error?: unknown;
  events: HostEvent[];
}

/**
 * One turn of the real model loop (`invokeModel`, the `openai` client, the wire's reader) against
 * `baseURL`, with no retries and one model call: what the worker would run, without the worker.
 */
export async function modelTurn(
  api: ModelApi,
  baseURL: string,
  options: { apiKey?: string; tools?: ModelTool[] } = {},
): Promise<ModelTurn> {
  const events: HostEvent[] = [];
  const io = {
    emit: (event: HostEvent) => events.push(event),
    signal: new AbortController().signal,
    files: { list: async () => [], read: async () => null },
    lookAtScreen: async () => [],
    parts: async () => [],
    takeSteering: async () => [],
    rememberedTools: [],
    budgetLeft: async () => undefined,
    secret: async () => {
      throw new Error('no secrets here');
    },
  } as unknown as HostAgentIO;
  const input = {
    conversationId: 'c1',
    runId: 'r1',
    message: 'hi',
    prompt: 'hi',
    hostContext: null,
    attachments: [],
    tools: { host: [], backend: (options.tools ?? []).map((t) => ({ name: t.name })) },
    screenAvailable: false,
    history: [
      {
        id: 'm1',
        role: 'user',
        content: 'hi',
        prompt: 'hi',
        attachments: [],
        createdAt: '2026-12-01T00:00:00Z',
      },
    ],
    files: [],
    metadata: {},
    context: { user: { id: 'u1' }, data: {} },
  } as unknown as HostAgentInput;
  try {
    const result = await invokeModel(
      {
        api,
        baseURL,
        apiKey: options.apiKey ?? 'sk-test-key',
        model: 'm',
        maxRetries: 0,
        maxTurns: 1,
        ...(options.tools && { tools: options.tools }),
        info: { id: 'raw' },
      } as never,
      input,
      io,
    );
    return { result, events };
  } catch (error) {
    return { error, events };
  }
}
