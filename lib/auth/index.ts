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
