import type { IncomingMessage } from 'node:http';
import {
  connectionsOperation,
  dynamodbOperation,
  eventsOperation,
  type Operation,
  type ResourceNames,
  s3Operation,
  secretsOperation,
  sqsOperation,
} from './operations.ts';

/**
 * Which emulator a front stands before: dynalite, fauxqs (SQS and S3 on one port), the gateway's
 * `@connections`, the local EventBridge bus, or the local Secrets Manager.
 */
export type FrontTarget = 'dynamodb' | 'fauxqs' | 'connections' | 'events' | 'secrets';

/** The call a request makes, as IAM sees it, by the emulator it is for and the service's wire protocol. */
export function operationOf(
  req: IncomingMessage,
  body: Buffer,
  path: string,
  query: URLSearchParams,
  front: FrontTarget,
  names: ResourceNames,
): Operation {
  const target = String(req.headers['x-amz-target'] ?? '');
  if (front === 'dynamodb') return dynamodbOperation(target, body, names);
  if (front === 'connections') return connectionsOperation(req.method ?? 'POST', path, names);
  if (front === 'events') return eventsOperation(target, body, names);
  if (front === 'secrets') return secretsOperation(target, body, names);
  if (target.startsWith('AmazonSQS.')) return sqsOperation(target.slice('AmazonSQS.'.length), body, names);
  const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  const action = form ? new URLSearchParams(body.toString('utf8')).get('Action') : null;
  if (action) return sqsOperation(action, body, names);
  return s3Operation(req, path, query, names, body);
}
