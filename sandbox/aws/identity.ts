import type { IncomingMessage } from 'node:http';
import { FUNCTION_NAMES, type FunctionName } from '../../lib/config/index.ts';

/** The sandbox's account, in the ARNs its errors name. */
export const SANDBOX_ACCOUNT = '000000000000';

/** The secret every sandbox key shares: the emulators check none, the presigned-upload check needs one. */
export const SANDBOX_SECRET = 'sandbox';

/** The sandbox's own key (table set-up, tests reading state): allowed everything, never faulted. */
export const ADMIN_KEY = 'sandbox';

/** Who made a request: one of the functions, by its role, or the sandbox itself. */
export type Caller = { kind: 'function'; fn: FunctionName } | { kind: 'admin' };

/** The credentials a function's clients sign with, so the sandbox knows which role is calling. */
export function credentialsOf(fn: FunctionName): { accessKeyId: string; secretAccessKey: string } {
  return { accessKeyId: `sandbox-${fn}`, secretAccessKey: SANDBOX_SECRET };
}

/** The access key a SigV4 request was signed with: from its Authorization header or a presigned URL. */
export function accessKeyOf(req: IncomingMessage, query: URLSearchParams): string | undefined {
  const header = /Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '');
  if (header?.[1]) return header[1];
  return query.get('X-Amz-Credential')?.split('/')[0];
}

/** The caller of a key, or undefined for a key the sandbox never issued. */
export function callerOf(key: string | undefined): Caller | undefined {
  if (key === ADMIN_KEY) return { kind: 'admin' };
  const fn = FUNCTION_NAMES.find((name) => key === `sandbox-${name}`);
  return fn ? { kind: 'function', fn } : undefined;
}

/** The ARN AWS names in an AccessDenied message: the function's assumed role. */
export function principalArn(caller: Caller): string {
  const name = caller.kind === 'function' ? caller.fn : 'sandbox';
  return `arn:aws:sts::${SANDBOX_ACCOUNT}:assumed-role/switchboard-${name}-role/${name}`;
}
