import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { InvalidTokenError } from '../errors/index.ts';
import { type AuthConfig, AuthConfigSchema, DiscoverySchema, JWT_ALGORITHMS } from './types.ts';

/** Checks a token and returns its claims, or throws {@link InvalidTokenError}. */
export type JwtVerifier = (token: string) => Promise<JWTPayload>;

/** How long the issuer's discovery document is kept; its keys are kept by jose and refetched on a new `kid`. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
/** Longest a discovery or key request may take: a Lambda authoriser has seconds, not minutes. */
const FETCH_TIMEOUT_MS = 5_000;

/** The discovery document's URL: `<issuer>/.well-known/openid-configuration`, as OpenID Connect says. */
export function discoveryUrlOf(config: AuthConfig): string {
  return config.discoveryUrl ?? `${config.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

async function discover(config: AuthConfig): Promise<ReturnType<typeof createRemoteJWKSet>> {
  const res = await fetch(discoveryUrlOf(config), { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`The issuer's discovery document answered ${res.status}.`);
  const document = DiscoverySchema.parse(await res.json());
  // OpenID Connect Discovery: the document's issuer is exactly the one configured.
  if (document.issuer !== config.issuer) {
    throw new Error(`The discovery document names issuer "${document.issuer}", not "${config.issuer}".`);
  }
  return createRemoteJWKSet(new URL(document.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS });
}

/** Why jose refused a token, in words that never quote it. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired.';
  if (error instanceof errors.JWTClaimValidationFailed)
    return `The token's "${error.claim}" claim is not accepted.`;
  if (error instanceof errors.JOSEAlgNotAllowed)
    return `The token's algorithm is not accepted (${JWT_ALGORITHMS.join(', ')}).`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The token's signature does not verify.";
  if (error instanceof errors.JWKSNoMatchingKey) return 'The token was not signed by a key of the issuer.';
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid)
    return 'The token is not a well-formed JWT.';
  return 'The token could not be verified.';
}

/** API Gateway's audience rule: `aud` names one of the audiences, or, without `aud`, `client_id` does. */
function audienceAccepted(payload: JWTPayload, audience: readonly string[]): boolean {
  const aud = payload.aud ?? payload.client_id;
  const named = Array.isArray(aud) ? aud : [aud];
  return named.some((value) => typeof value === 'string' && audience.includes(value));
}

/**
 * A verifier for tokens of one issuer and audience, as API Gateway's JWT authoriser checks them:
 * an RSA signature by a key of the issuer's key set (found through its OpenID discovery document),
 * the issuer, the audience (`aud`, else `client_id`), `exp` (required, in the future), `nbf` and
 * `iat` (not in the future). The discovery document and the keys are fetched on first use and kept
 * for the life of the process, so a warm Lambda verifies without a network call.
 *
 * @example
 * ```ts
 * const verify = createJwtVerifier({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc', audience: ['app-client-id'] });
 * const claims = await verify(token); // throws InvalidTokenError
 * ```
 *
 * `clock` is the time the token is checked against, in epoch ms. A verifier is built before any
 * runtime (from the environment, in Lambda), so it takes the clock itself rather than a runtime's.
 */
export function createJwtVerifier(options: AuthConfig, clock: () => number = Date.now): JwtVerifier {
  const config = AuthConfigSchema.parse(options);
  let keys: { set: Promise<ReturnType<typeof createRemoteJWKSet>>; at: number } | undefined;
  const keySet = () => {
    if (!keys || clock() - keys.at > DISCOVERY_TTL_MS) {
      const set = discover(config);
      keys = { set, at: clock() };
      // A failed discovery is tried again by the next request rather than kept.
      set.catch(() => {
        if (keys?.set === set) keys = undefined;
      });
    }
    return keys.set;
  };
  return async (token) => {
    if (!/^[\w-]+\.[\w-]+\.[\w-]*$/.test(token))
      throw new InvalidTokenError('The token is not a well-formed JWT.');
    const jwks = await keySet().catch((error: unknown) => {
      throw new InvalidTokenError(`The issuer's keys could not be read: ${(error as Error).message}`);
    });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: config.issuer,
        algorithms: [...JWT_ALGORITHMS],
        requiredClaims: ['exp'],
        currentDate: new Date(clock()),
      }));
    } catch (error) {
      throw new InvalidTokenError(reasonOf(error));
    }
    if (!audienceAccepted(payload, config.audience)) {
      throw new InvalidTokenError('The token is not for this audience.');
    }
    if (typeof payload.iat === 'number' && payload.iat > clock() / 1000) {
      throw new InvalidTokenError('The token was issued in the future.');
    }
    return payload;
  };
}
