export { type AuthorizerShape, claimsOf, gatewayClaims } from './claims.ts';
export {
  type ConnectAuthorizer,
  type ConnectAuthorizerOptions,
  createConnectAuthorizer,
} from './connect-authorizer.ts';
export { AUTH_ENV, authConfigFromEnv, verifierFromEnv } from './env.ts';
export { identify } from './identify.ts';
export {
  identityFromAuthorizer,
  isOwner,
  lapseContext,
  ownerIdentity,
  ownerOf,
  requestContextOf,
  systemContext,
  tenantOf,
} from './identity.ts';
// The verifier itself (and jose) is imported from './jwt.ts' where it is needed, never through this
// index: every function imports the index, and jose belongs only in the chunk that verifies tokens.
export type { JwtVerifier } from './jwt.ts';
export { defaultResolveContext, identityFromContext, resolveIdentity } from './resolve.ts';
export { hostSessionId, isOwnRef, isSessionRef, ownerScope, sessionRef, withScope } from './session-ref.ts';
export {
  bearerToken,
  type ConnectRequest,
  connectToken,
  headerOf,
  offeredProtocols,
  SWITCHBOARD_PROTOCOL,
  TOKEN_PROTOCOL_PREFIX,
} from './token.ts';
export {
  ANONYMOUS,
  type AuthConfig,
  AuthConfigSchema,
  type Claims,
  type Identity,
  JWT_ALGORITHMS,
  type ResolveContext,
  type ResolvedContext,
  ResolvedContextSchema,
} from './types.ts';
