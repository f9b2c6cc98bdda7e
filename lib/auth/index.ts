export { ANONYMOUS, type Identity, identityFromAuthorizer, requestContextOf } from './identity.ts';
