export { TableClient, type TableClientConfig, type TableMiddleware } from './client.ts';
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
} from './commands.ts';
export { paginateQuery, paginateScan } from './paginate.ts';
