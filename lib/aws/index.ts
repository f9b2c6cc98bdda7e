export { type AwsCredentials, defaultCredentials } from './credentials.ts';
export {
  type CheckedRegion,
  checkRegion,
  type EndpointSettings,
  type ResolvedEndpoint,
  resolveEndpoint,
} from './endpoint.ts';
export { AwsJsonClient, type AwsJsonClientConfig, type AwsJsonService } from './json-client.ts';
export { PARTITIONS, type Partition, partitionOf } from './partitions.ts';
export { endpointSettings } from './settings.ts';
export { type AwsCredentialIdentity, type SignableRequest, SigV4Signer, uriEncode } from './sign.ts';
export {
  type AnyTableCommand,
  BatchGetItem,
  BatchWriteItem,
  DeleteItem,
  GetItem,
  PutItem,
  paginateQuery,
  paginateScan,
  Query,
  Scan,
  TableClient,
  type TableClientConfig,
  TableCommand,
  type TableMiddleware,
  UpdateItem,
} from './table/index.ts';
export { toJson } from './wire.ts';
