import type { Runtime } from '../config/index.ts';
import { updateIf } from './table.ts';

/** The key of one subject's counter in one window (see `keys.userRate`, `keys.connectionRate`). */
export interface CounterKey {
  pk: string;
  sk: string;
}

/**
 * Counts one request in a window's counter unless it already holds `limit`: one conditional
 * UpdateItem `ADD`. Returns false, having written nothing, when the window is full. The item carries
 * `ttl` (epoch seconds) so that DynamoDB removes it once its window is long past.
 */
export function countRequest(rt: Runtime, key: CounterKey, limit: number, ttl: number): Promise<boolean> {
  return updateIf(rt, {
    Key: key,
    UpdateExpression: 'SET #ttl = :ttl ADD #count :one',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
    ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': ttl },
  });
}
