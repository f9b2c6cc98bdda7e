export type { AwsCredentials } from './credentials.ts';
export { AwsJsonClient, type AwsJsonClientConfig, type AwsJsonService } from './json-client.ts';
export { type AwsCredentialIdentity, SigV4Signer } from './sign.ts';
export { TableClient, type TableClientConfig } from './table/client.ts';
export {
  type AnyTableCommand,
  BatchGetItem,
  BatchWriteItem,
  DeleteItem,
  GetItem,
  PutItem,
  Query,
  Scan,
  UpdateItem,
} from './table/commands.ts';
export { paginateQuery, paginateScan } from './table/paginate.ts';
