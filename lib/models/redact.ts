/** What a redacted credential reads as. */
const REDACTED = '[redacted]';

/** The most characters of an endpoint's message a turn's error keeps. */
const MAX_MESSAGE = 500;

/**
 * What looks like a credential in an endpoint's text: OpenAI-style keys (`sk-…`, `sk-proj-…`, also
 * echoed in part with `*`), bearer tokens, the value after `Authorization`, `api-key`, `x-api-key`,
 * `token` or `secret`, AWS access key ids, JWTs, and any run of 32 or more key-like characters.
 */
const PATTERNS: [RegExp, string][] = [
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_*-]{3,}/g, REDACTED],
  [/\bBearer\s+[^\s"',;]+/gi, `Bearer ${REDACTED}`],
  [
    /\b(authorization|x-api-key|api[-_ ]?key|access[-_]?token|token|secret)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic)\s+)?[^\s"',;}]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]*)?/g, REDACTED],
  [/[A-Za-z0-9_+/=-]{32,}/g, REDACTED],
];

/**
 * An endpoint's error text as a turn may report it: a key echoed masked with `*` removed, the
 * configured key removed (whole, its first 8 and last 6 characters, and any word of 4 or more
 * characters that is part of it, as endpoints echo a key in part), then anything that looks like a
 * credential, control characters made spaces, and the whole cut to 500 characters. The endpoint's
 * text is never reported otherwise.
 */
export function redactEndpointText(text: string, key?: string): string {
  // A key echoed masked (`sk-abc1****wxyz`), before the key's own parts are looked for in it.
  let out = text.replace(/[A-Za-z0-9_-]*\*{3,}[A-Za-z0-9_-]*/g, REDACTED);
  if (key !== undefined && key.length >= 4) {
    out = out.split(key).join(REDACTED);
    if (key.length >= 16) out = out.split(key.slice(0, 8)).join(REDACTED).split(key.slice(-6)).join(REDACTED);
    // A key echoed in pieces (`sk-proj-abc1…o345`): every word of 4 or more key characters that is
    // part of the key.
    out = out.replace(/[A-Za-z0-9_-]{4,}/g, (word) => (key.includes(word) ? REDACTED : word));
  }
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  out = out.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return out.length > MAX_MESSAGE ? `${out.slice(0, MAX_MESSAGE)}…` : out;
}

/** A model's name as an endpoint reports it, kept only when it is a plain name (`gpt-4o-2024-08-06`, `org/model`). */
export const modelName = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[A-Za-z0-9_.:/@+-]{1,128}$/.test(value) ? value : undefined;

/** An endpoint's error type or code, kept only when it is a plain identifier (`invalid_api_key`). */
export const identifier = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[A-Za-z0-9_.:-]{1,64}$/.test(value) ? value : undefined;
