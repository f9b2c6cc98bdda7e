import type { OpenAI } from 'openai';
import { apiKeyFromSecret } from './secret.ts';
import type { ModelSettings } from './types.ts';

/** One client per endpoint and key, made with the first turn and kept for the execution environment. */
const clients = new Map<string, Promise<OpenAI>>();

/**
 * The official `openai` client of an agent's endpoint, loaded on first use. Its own retry (429,
 * 5xx, connection errors, with `retry-after`) is the only one: `maxRetries` (default 2), each call
 * stopped by the turn's signal, so retries never outlast the turn.
 */
export async function clientFor(settings: ModelSettings): Promise<OpenAI> {
  const apiKey = settings.apiKey ?? (await apiKeyFromSecret(settings.apiKeyFromSecret as string));
  const id = `${settings.baseURL}\n${settings.maxRetries ?? 2}\n${apiKey}`;
  let client = clients.get(id);
  if (!client) {
    client = import('openai').then(
      ({ OpenAI }) => new OpenAI({ baseURL: settings.baseURL, apiKey, maxRetries: settings.maxRetries ?? 2 }),
    );
    client.catch(() => clients.delete(id));
    clients.set(id, client);
  }
  return client;
}
