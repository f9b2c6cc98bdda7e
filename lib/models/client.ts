import type { OpenAI } from 'openai';
import type { HostAgentIO } from '../contract/index.ts';
import { checkedFetch } from './parse.ts';
import { keyOfSecret } from './secret.ts';
import type { ModelSettings } from './types.ts';

/** One client per endpoint and key, made with the first turn and kept for the execution environment. */
const clients = new Map<string, Promise<OpenAI>>();

/**
 * The official `openai` client of an agent's endpoint, loaded on first use. Its own retry (429,
 * 5xx, connection errors, with `retry-after`) is the only one: `maxRetries` (default 2), each call
 * stopped by the turn's signal, so retries never outlast the turn. Its answers are read through
 * {@link checkedFetch}: an event stream, of bounded size.
 */
export async function clientFor(settings: ModelSettings, io: Pick<HostAgentIO, 'secret'>): Promise<OpenAI> {
  const apiKey = settings.apiKey ?? (await keyFrom(settings.apiKeyFromSecret as string, io));
  const id = `${settings.baseURL}\n${settings.maxRetries ?? 2}\n${apiKey}`;
  let client = clients.get(id);
  if (!client) {
    client = import('openai').then(
      ({ OpenAI }) =>
        new OpenAI({
          baseURL: settings.baseURL,
          apiKey,
          maxRetries: settings.maxRetries ?? 2,
          fetch: checkedFetch,
          // Never OPENAI_LOG's level: the runtime's log is the one log, and at info and debug the
          // client would write lines of its own (URLs, headers, statuses) with no session or run.
          logLevel: 'warn',
        }),
    );
    client.catch(() => clients.delete(id));
    clients.set(id, client);
  }
  return client;
}

/** The key of `apiKeyFromSecret`, read by the runtime once per execution environment. */
async function keyFrom(secretId: string, io: Pick<HostAgentIO, 'secret'>): Promise<string> {
  let text: string;
  try {
    text = await io.secret(secretId);
  } catch (error) {
    // The SDK's error names the secret and the reason; nothing of the secret's value.
    throw new Error(`The endpoint key could not be read from ${secretId}: ${(error as Error).message}`);
  }
  return keyOfSecret(secretId, text);
}
