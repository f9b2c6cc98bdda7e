export {
  type AwsCredentials,
  AwsJsonClient,
  type AwsJsonClientConfig,
  type AwsJsonService,
  toJson,
} from './json-client.ts';
export { type AwsCredentialIdentity, type SignableRequest, SigV4Signer, uriEncode } from './sign.ts';
