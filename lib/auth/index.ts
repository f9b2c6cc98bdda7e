export {
  ANONYMOUS,
  type Identity,
  identityFromAuthorizer,
  isOwner,
  lapseContext,
  ownerIdentity,
  ownerOf,
  requestContextOf,
  tenantOf,
} from './identity.ts';
export { hostSessionId, isOwnRef, isSessionRef, ownerScope, sessionRef } from './session-ref.ts';
