import * as z from 'zod';

/**
 * The JWT algorithms accepted: the RSA ones, the only kind API Gateway's JWT authoriser verifies on an
 * HTTP API, so that a token the WebSocket API accepts is one the HTTP API accepts too. `none` and the
 * HMAC algorithms are never accepted.
 */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512'] as const;

/** An issuer as API Gateway takes it: an https URL (the discovery document is read from it). */
const IssuerSchema = z.url({ protocol: /^https$/, error: 'Expected an https URL' });

/**
 * Built-in authentication: who issues the tokens and for whom. The HTTP API's JWT authoriser and the
 * WebSocket API's `$connect` authoriser both take a token only from this issuer, for one of these
 * audiences (the token's `aud`, or its `client_id` when it has no `aud`, as Cognito's access tokens do).
 */
export const AuthConfigSchema = z.strictObject({
  issuer: IssuerSchema,
  audience: z.array(z.string().min(1)).min(1, 'Expected at least one audience'),
  /**
   * Where the OpenID discovery document is; default `<issuer>/.well-known/openid-configuration`. Only
   * the sandbox sets it (its issuer is a fixed name, its document is served on its own port).
   */
  discoveryUrl: z.url().optional(),
});

/** {@link AuthConfigSchema}'s type. */
export type AuthConfig = z.infer<typeof AuthConfigSchema>;

/** The verified claims of a token, or a Lambda authoriser's context: what `resolveContext` reads. */
export type Claims = Readonly<Record<string, unknown>>;

/** The part of an OpenID discovery document the verifier reads. */
export const DiscoverySchema = z.object({ issuer: z.string(), jwks_uri: z.url() });

/**
 * What `resolveContext` returns: the user (null refuses the caller, 401) and the app's own data, the
 * tenant among it. It reaches the agent as `input.context`, and is stored with each run, so it is
 * JSON and small.
 */
export const ResolvedContextSchema = z.object({
  // 256: resolve.ts refuses a longer id as the token's (401), before this schema sees it.
  user: z.object({ id: z.string().min(1).max(256) }).nullable(),
  data: z
    .record(z.string(), z.unknown())
    .refine((data) => data.tenant === undefined || (typeof data.tenant === 'string' && data.tenant !== ''), {
      message: 'data.tenant must be a non-empty string when given',
    })
    .default({}),
});

/** {@link ResolvedContextSchema}'s input: what a `resolveContext` hook may return. */
export type ResolvedContext = z.input<typeof ResolvedContextSchema>;

/**
 * Turns an authenticated caller's claims into who they are here.
 *
 * @example
 * ```ts
 * const resolveContext: ResolveContext = (claims) => ({
 *   user: { id: String(claims.sub) },
 *   data: { tenant: claims['custom:tenant'], plan: claims['custom:plan'] },
 * });
 * ```
 */
export type ResolveContext = (claims: Claims) => ResolvedContext | Promise<ResolvedContext>;

/**
 * Who a request comes from, as the authoriser established it and `resolveContext` read it. Never
 * read from anything the host says about itself.
 */
export interface Identity {
  user: string;
  data: Record<string, unknown>;
  /**
   * The owner scope of the caller's sessions, keyed with the deployment's secret (`withScope`): set
   * by the step that identifies a request, before any session is named.
   */
  scope?: string;
}

/** The identity of a caller when no authoriser is configured (the local sandbox by default). */
export const ANONYMOUS = 'anonymous';
