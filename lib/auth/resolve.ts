import {
  InvalidContextError,
  InvalidTokenError,
  SwitchboardError,
  UnauthorizedError,
} from '../errors/index.ts';
import { type AuthorizerShape, claimsOf } from './claims.ts';
import {
  ANONYMOUS,
  type Claims,
  type Identity,
  type ResolveContext,
  type ResolvedContext,
  ResolvedContextSchema,
} from './types.ts';

/** Largest `data` a context may carry (it is stored with each run): it bounds the tenant too. */
export const MAX_DATA_BYTES = 8 * 1024;

const named = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/**
 * A control character: C0 (NUL among them), DEL or C1. An owner's ids are joined with NUL into the
 * digests that scope their sessions and key their items, so an id holding one could make two owners
 * one; none belongs in a name anyway.
 */
const CONTROL = /\p{Cc}/u;

/** Refuses (401 `invalid_token`) a user or tenant holding a control character, naming which and where. */
function refuseControls(user: string, tenant: unknown): void {
  for (const [what, value] of [
    ['user id', user],
    ['tenant', tenant],
  ] as const) {
    if (typeof value !== 'string') continue;
    const at = value.search(CONTROL);
    if (at === -1) continue;
    const code = value.codePointAt(at)?.toString(16).toUpperCase().padStart(4, '0');
    throw new InvalidTokenError(
      `The caller's ${what} holds a control character (U+${code} at position ${at}), which no user id or tenant may.`,
    );
  }
}

/** The longest user id, in characters: {@link ResolvedContextSchema}'s bound. */
const MAX_USER_ID = 256;

/**
 * Refuses (401 `invalid_token`) a well-formed context whose values are too long to be an identity
 * here: a user id over 256 characters. Its values come from the caller's token (a `sub` of any
 * length), so this is the caller's fault, not the deployment's; a context of the wrong shape is.
 */
function refuseOversized(resolved: unknown): void {
  const id = (resolved as { user?: { id?: unknown } } | null)?.user?.id;
  // Characters as the schema counts them: code points, so 256 of any script fit.
  if (typeof id === 'string' && [...id].length > MAX_USER_ID)
    throw new InvalidTokenError(`The caller's user id is over ${MAX_USER_ID} characters.`);
}

/**
 * The default `resolveContext`: the user is the token's `sub` (or a Lambda authoriser's `user`, or its
 * `principalId`), the tenant its `tenant` or Cognito's `custom:tenant` claim. Nothing else is kept.
 *
 * @example
 * ```ts
 * defaultResolveContext({ sub: 'u1', 'custom:tenant': 'acme', role: 'admin' });
 * // { user: { id: 'u1' }, data: { tenant: 'acme' } }
 * ```
 */
export function defaultResolveContext(claims: Claims): ResolvedContext {
  const user = [claims.sub, claims.user, claims.principalId].find(named);
  const tenant = [claims.tenant, claims['custom:tenant']].find(named);
  return { user: user === undefined ? null : { id: user }, data: tenant === undefined ? {} : { tenant } };
}

/**
 * Checks what a `resolveContext` returned and makes it an identity. A null user is refused (401
 * `unauthorized`), and so is a user or tenant with a control character (401 `invalid_token`): both
 * come from the caller's token.
 */
export function identityFromContext(resolved: unknown): Identity {
  refuseOversized(resolved);
  const parsed = ResolvedContextSchema.safeParse(resolved);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidContextError(
      `resolveContext returned no usable context${issue ? ` (${issue.path.join('.') || 'result'}: ${issue.message})` : ''}.`,
    );
  }
  const { user, data } = parsed.data;
  // A caller the authoriser accepted but who names nobody must not become the shared anonymous user.
  if (user === null)
    throw new UnauthorizedError("The caller's claims name no user: no subject (sub), user or principalId.");
  refuseControls(user.id, data.tenant);
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch {}
  if (json === undefined) throw new InvalidContextError('resolveContext must return data that is JSON.');
  if (Buffer.byteLength(json) > MAX_DATA_BYTES)
    throw new InvalidTokenError(`The caller's context must be at most ${MAX_DATA_BYTES} bytes as JSON.`);
  return { user: user.id, data: JSON.parse(json) as Record<string, unknown> };
}

/**
 * Who a request comes from: the authoriser's claims turned into a user and data by `resolveContext`
 * (the default one without it). Anonymous only when no authoriser ran. A hook that throws refuses the
 * caller (401) unless it threw a Switchboard error of its own.
 */
export async function resolveIdentity(
  authorizer: AuthorizerShape | undefined | null,
  resolveContext: ResolveContext = defaultResolveContext,
): Promise<Identity> {
  const claims = claimsOf(authorizer);
  if (claims === undefined) return { user: ANONYMOUS, data: {} };
  let resolved: unknown;
  try {
    resolved = await resolveContext(claims);
  } catch (error) {
    if (error instanceof SwitchboardError) throw error;
    throw new UnauthorizedError(
      `resolveContext refused the caller: ${String((error as Error)?.message ?? error)}`,
    );
  }
  return identityFromContext(resolved);
}
