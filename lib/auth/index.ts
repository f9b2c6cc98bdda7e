export {
  ANONYMOUS,
  type Identity,
  identityFromAuthorizer,
  isOwner,
  ownerIdentity,
  ownerOf,
  requestContextOf,
  tenantOf,
} from './identity.ts';
