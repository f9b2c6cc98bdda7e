import type {
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { TableClient } from './client.ts';
import { Query, Scan } from './commands.ts';

/**
 * Every page of a Query or Scan, each call starting where the last one stopped
 * (`LastEvaluatedKey`), as the SDK's paginators (`paginateQuery`, `paginateScan`) give them.
 */
async function* paginate<
  Input extends { ExclusiveStartKey?: Record<string, unknown> },
  Output extends { LastEvaluatedKey?: Record<string, unknown> },
>(send: (input: Input) => Promise<Output>, input: Input): AsyncGenerator<Output> {
  let start = input.ExclusiveStartKey;
  do {
    const page = await send({ ...input, ExclusiveStartKey: start });
    yield page;
    start = page.LastEvaluatedKey;
  } while (start);
}

export function paginateQuery(
  { client }: { client: TableClient },
  input: QueryCommandInput,
): AsyncGenerator<QueryCommandOutput> {
  return paginate((page) => client.send(new Query(page)), input);
}

export function paginateScan(
  { client }: { client: TableClient },
  input: ScanCommandInput,
): AsyncGenerator<ScanCommandOutput> {
  return paginate((page) => client.send(new Scan(page)), input);
}
