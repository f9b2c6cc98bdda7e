import type { IncomingMessage } from 'node:http';
import { allows, type Permissions } from '../../lib/config/index.ts';
import { type AwsAnswer, awsError } from './errors.ts';
import { type Caller, principalArn, SANDBOX_SECRET } from './identity.ts';
import type { Operation } from './operations.ts';
import { checkPresigned } from './presign.ts';

/** What IAM and S3 would refuse this call with, if anything. */
export async function refusal(
  req: IncomingMessage,
  op: Operation,
  caller: Caller | undefined,
  parts: { path: string; query: URLSearchParams; body: Buffer },
  permissions: Permissions,
): Promise<AwsAnswer | undefined> {
  if (!caller)
    return awsError(op.service, 'accessDenied', 'The security token included in the request is invalid.');
  if (op.service === 's3' && parts.query.has('X-Amz-Signature')) {
    const bad = await checkPresigned(
      req.method ?? 'GET',
      parts.path,
      parts.query,
      req.headers,
      parts.body,
      SANDBOX_SECRET,
    );
    if (bad) return awsError('s3', bad.kind, bad.message);
  }
  if (caller.kind === 'admin') return undefined;
  const kind = op.kind;
  // An object call is allowed only when a grant covers its key's prefix (each key of a multi-delete).
  const outside = kind && op.keys?.find((key) => !allows(caller.fn, op.action, kind, permissions, key));
  if (kind && outside === undefined && allows(caller.fn, op.action, kind, permissions)) return undefined;
  const arn = outside === undefined ? op.arn : `${op.arn.replace(/\/.*$/, '')}/${outside}`;
  return awsError(
    op.service,
    'accessDenied',
    `User: ${principalArn(caller)} is not authorized to perform: ${op.action} on resource: ${arn} because no identity-based policy allows the ${op.action} action`,
  );
}
