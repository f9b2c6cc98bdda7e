/** The keys read so far, per secret: once per execution environment (a failed read is tried again). */
const read = new Map<string, Promise<string>>();

/**
 * An endpoint's key from Secrets Manager, as the session-ref key is read (lib/config/ref-key.ts):
 * one `GetSecretValue` per execution environment, with the function's own region and credentials,
 * never logged. A secret holding JSON with an `apiKey` field gives that field.
 */
export function apiKeyFromSecret(secretId: string): Promise<string> {
  let key = read.get(secretId);
  if (!key) {
    key = readKey(secretId);
    key.catch(() => read.delete(secretId));
    read.set(secretId, key);
  }
  return key;
}

async function readKey(secretId: string): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient({});
  try {
    const { SecretString = '' } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    let key = SecretString;
    if (SecretString.startsWith('{')) {
      try {
        key = String((JSON.parse(SecretString) as { apiKey?: unknown }).apiKey ?? '');
      } catch {}
    }
    if (key === '') throw new Error(`The secret ${secretId} holds no key.`);
    return key;
  } catch (error) {
    // The SDK's error names the secret and the reason; nothing of the secret's value.
    throw new Error(`The endpoint key could not be read from ${secretId}: ${(error as Error).message}`);
  } finally {
    client.destroy();
  }
}
