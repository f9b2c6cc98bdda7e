/**
 * The endpoint key a secret holds: its whole string, or the `apiKey` field of a secret holding JSON
 * (as a secret made in the console as key/value pairs is). The secret is read by `io.secret`, the
 * runtime's loader of the session-ref key.
 */
export function keyOfSecret(secretId: string, text: string): string {
  let key = text;
  if (text.startsWith('{')) {
    try {
      key = String((JSON.parse(text) as { apiKey?: unknown }).apiKey ?? '');
    } catch {}
  }
  if (key === '') throw new Error(`The secret ${secretId} holds no key.`);
  return key;
}
