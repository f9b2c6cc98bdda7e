export {
  type AwsCredentials,
  AwsJsonClient,
  type AwsJsonClientConfig,
  type AwsJsonService,
  toJson,
} from './json-client.ts';
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
