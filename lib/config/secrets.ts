import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** Where a runtime's Secrets Manager is, and with which identity it is called. */
export interface SecretsConfig {
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  endpoint?: string;
}

/**
 * One secret's current string: one `GetSecretValue` with the function's own region and
 * credentials. The session-ref key and the endpoint keys of model agents are read with it, each
 * once per execution environment (`Runtime.refKey()`, `Runtime.secret()`): neither is rotated
 * under a running function, so nothing is refreshed. An error names the secret, never its value.
 */
export async function readSecret(config: SecretsConfig, secretId: string): Promise<string> {
  const client = new SecretsManagerClient(config);
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    return SecretString ?? '';
  } finally {
    client.destroy();
  }
}
