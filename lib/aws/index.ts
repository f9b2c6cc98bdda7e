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
export { TableClient, type TableClientConfig, type TableMiddleware } from './table/client.ts';
export {
  type AnyTableCommand,
  BatchGetItem,
  BatchWriteItem,
  DeleteItem,
  GetItem,
  PutItem,
  Query,
  Scan,
  TableCommand,
  UpdateItem,
} from './table/commands.ts';
export { paginateQuery, paginateScan } from './table/paginate.ts';
export { toJson } from './wire.ts';
