import { AwsJsonClient } from './json-client.ts';

/** Where a runtime's Secrets Manager is, and with which identity it is called. */
export interface SecretsConfig {
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  endpoint?: string;
}

/** Secrets Manager's JSON protocol (1.1). */
export const SECRETS_MANAGER = {
  name: 'secretsmanager',
  target: 'secretsmanager',
  jsonVersion: '1.1',
  endpointVariable: 'AWS_ENDPOINT_URL_SECRETS_MANAGER',
} as const;

/** As the SDK's clients: three attempts. */
const SECRET_ATTEMPTS = 3;

/**
 * One secret's current string: one `GetSecretValue` with the function's own region and
 * credentials, sent by the same small client as the table's (lib/aws): the session-ref key is read
 * on every cold start of the API functions, and the SDK's Secrets Manager client would load the SDK's
 * core (about 225 KB) into that first request. The session-ref key and the endpoint keys of model
 * agents are read with it, each once per execution environment (`Runtime.refKey()`,
 * `Runtime.secret()`): neither is rotated under a running function, so nothing is refreshed. An error
 * names the secret, never its value.
 */
export async function readSecret(config: SecretsConfig, secretId: string): Promise<string> {
  const client = new AwsJsonClient(SECRETS_MANAGER, { ...config, maxAttempts: SECRET_ATTEMPTS });
  try {
    const { SecretString } = await client.call('GetSecretValue', JSON.stringify({ SecretId: secretId }));
    return typeof SecretString === 'string' ? SecretString : '';
  } finally {
    client.destroy();
  }
}
