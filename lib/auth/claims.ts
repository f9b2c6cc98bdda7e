import type { Claims } from './types.ts';

/** One claim value as API Gateway hands it on: every value becomes a string. */
function claimText(value: unknown): string {
  if (typeof value === 'string') return value;
  // Arrays come as `[a b]` (space-separated, in brackets), as the HTTP API's JWT authoriser renders
  // `cognito:groups`; nested objects as JSON.
  if (Array.isArray(value)) return `[${value.map(claimText).join(' ')}]`;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A verified token's claims as API Gateway puts them in `requestContext.authorizer.jwt.claims`: each
 * value a string (numbers and booleans as their text, arrays as `[a b]`), null ones left out. The
 * `$connect` authoriser hands on the same strings as its context (a Lambda authoriser's context takes
 * only strings, numbers and booleans), so `resolveContext` reads one shape on both APIs.
 *
 * @example
 * ```ts
 * gatewayClaims({ sub: 'u1', exp: 1700000000, groups: ['a', 'b'] });
 * // { sub: 'u1', exp: '1700000000', groups: '[a b]' }
 * ```
 */
export function gatewayClaims(payload: Readonly<Record<string, unknown>>): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value !== null && value !== undefined) claims[name] = claimText(value);
  }
  return claims;
}

/** The keys API Gateway adds to a Lambda authoriser's context, which are not the caller's claims. */
const GATEWAY_KEYS = new Set(['integrationLatency']);

/** What `requestContext.authorizer` may hold: a JWT authoriser's claims, or a Lambda authoriser's context. */
export type AuthorizerShape = {
  jwt?: { claims?: Record<string, unknown>; scopes?: unknown };
  lambda?: Record<string, unknown>;
  principalId?: unknown;
  [key: string]: unknown;
};

/**
 * The caller's claims from an event's `requestContext.authorizer`: the JWT authoriser's claims (HTTP),
 * the Lambda authoriser's context (HTTP, `authorizer.lambda`) or the `$connect` authoriser's context
 * (WebSocket, on the authoriser itself, `principalId` included). Undefined when no authoriser ran.
 */
export function claimsOf(authorizer: AuthorizerShape | undefined | null): Claims | undefined {
  if (!authorizer) return undefined;
  if (authorizer.jwt) return authorizer.jwt.claims ?? {};
  const context = authorizer.lambda ?? authorizer;
  const claims = Object.fromEntries(Object.entries(context).filter(([key]) => !GATEWAY_KEYS.has(key)));
  // An authoriser that handed on nothing at all (an empty principal) is no authoriser.
  const named = Object.entries(claims).some(([key, value]) => key !== 'principalId' || value !== '');
  return named ? claims : undefined;
}
