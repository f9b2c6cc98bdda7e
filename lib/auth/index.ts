export { type AuthorizerShape, claimsOf, gatewayClaims } from './claims.ts';
export {
  type ConnectAuthorizer,
  type ConnectAuthorizerOptions,
  createConnectAuthorizer,
} from './connect-authorizer.ts';
export { AUTH_ENV, authConfigFromEnv, verifierFromEnv } from './env.ts';
export {
  identityFromAuthorizer,
  isOwner,
  lapseContext,
  ownerIdentity,
  ownerOf,
  requestContextOf,
  tenantOf,
} from './identity.ts';
export { createJwtVerifier, discoveryUrlOf, type JwtVerifier } from './jwt.ts';
export { defaultResolveContext, identityFromContext, resolveIdentity } from './resolve.ts';
export { hostSessionId, isOwnRef, isSessionRef, ownerScope, sessionRef } from './session-ref.ts';
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
