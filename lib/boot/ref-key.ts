import { readSecret, type SecretsConfig } from '../aws/secrets.ts';

/** The shortest key the runtime accepts: an HMAC-SHA-256 key of fewer bytes would weaken it. */
export const REF_KEY_MIN_BYTES = 32;

/** The key as bytes, refused when it is too short to key a digest that nobody may compute. */
export function refKeyBytes(text: string, where: string): Uint8Array {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length < REF_KEY_MIN_BYTES)
    throw new Error(`${where}: the session-ref key must be at least ${REF_KEY_MIN_BYTES} bytes.`);
  return bytes;
}

/**
 * Reads the deployment's session-ref key from Secrets Manager (the secret the construct generates).
 * `createRuntime` imports this module with `import()` on the first call of `Runtime.refKey()`, once
 * per execution environment: the key never changes (a new one would change every session's ref), so
 * it is not refreshed. Powertools' parameters utility would add a cache with a lifetime for a value
 * read once; one call (lib/aws/secrets.ts, which also reads model agents' keys) does the job.
 */
export async function readRefKey(config: SecretsConfig, secretId: string): Promise<Uint8Array> {
  return refKeyBytes(await readSecret(config, secretId), `secret ${secretId}`);
}
