import type { JwtVerifier } from './jwt.ts';
import { type AuthConfig, AuthConfigSchema } from './types.ts';

/**
 * The environment variables the stack gives the functions that verify tokens themselves (the
 * `$connect` authoriser, the AG-UI function): the issuer and audiences of built-in `auth`, or, for
 * the AG-UI function of an `allowAnonymous` stack, the explicit `anonymous` flag.
 */
export const AUTH_ENV = {
  issuer: 'SWITCHBOARD_AUTH_ISSUER',
  audience: 'SWITCHBOARD_AUTH_AUDIENCE',
  anonymous: 'SWITCHBOARD_ALLOW_ANONYMOUS',
} as const;

/**
 * The authoriser's configuration from its environment: the issuer, and the audiences as a JSON array
 * (an audience may hold any character). Throws, naming the variable, when one is missing or wrong.
 */
export function authConfigFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): AuthConfig {
  const audience = env[AUTH_ENV.audience];
  let parsedAudience: unknown;
  try {
    parsedAudience = audience === undefined ? undefined : JSON.parse(audience);
  } catch {
    throw new Error(`${AUTH_ENV.audience} must be a JSON array of strings.`);
  }
  const parsed = AuthConfigSchema.safeParse({ issuer: env[AUTH_ENV.issuer], audience: parsedAudience });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = issue?.path[0] === 'audience' ? AUTH_ENV.audience : AUTH_ENV.issuer;
    throw new Error(`${variable} is not set right: ${issue?.message ?? 'invalid'}.`);
  }
  return parsed.data;
}

/**
 * A verifier configured from the environment on first use and kept for the life of the execution
 * environment (so its keys are too): loading the module never throws. The JWT library (jose) is
 * loaded with the first token, so it is not part of any function's start-up code.
 */
export function verifierFromEnv(): JwtVerifier {
  let verify: Promise<JwtVerifier> | undefined;
  return async (token) => {
    verify ??= import('./jwt.ts').then(
      ({ createJwtVerifier }) => createJwtVerifier(authConfigFromEnv()),
      (error: unknown) => {
        // A chunk that failed to load is tried again by the next token.
        verify = undefined;
        throw error;
      },
    );
    return (await verify)(token);
  };
}
