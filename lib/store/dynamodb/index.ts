export { TableClient, type TableClientConfig, type TableMiddleware } from './client.ts';
export {
  type AnyTableCommand,
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TableCommand,
  UpdateCommand,
} from './commands.ts';
export { paginateQuery, paginateScan } from './paginate.ts';
