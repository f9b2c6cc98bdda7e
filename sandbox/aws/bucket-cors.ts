import type { IncomingHttpHeaders } from 'node:http';
import type { CorsConfig } from '../../lib/contract/index.ts';
import { originAllowed } from '../gateway/cors.ts';
import { type AwsAnswer, awsError } from './errors.ts';

const matches = (allowed: readonly string[], value: string) =>
  allowed.some((rule) => rule === '*' || rule.toLowerCase() === value.toLowerCase());

/** The CORS headers S3 adds for a rule that allows `origin` and `method`, or none. */
export function s3CorsHeaders(cors: CorsConfig, origin: string, method: string): Record<string, string> {
  if (!originAllowed(cors, origin) || !matches(cors.allowMethods, method)) return {};
  return {
    'access-control-allow-origin': cors.allowOrigins.includes('*') ? '*' : origin,
    'access-control-allow-methods': cors.allowMethods.join(', '),
    ...(cors.exposeHeaders && { 'access-control-expose-headers': cors.exposeHeaders.join(', ') }),
    ...(cors.maxAgeSeconds !== undefined && { 'access-control-max-age': String(cors.maxAgeSeconds) }),
    vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
  };
}

/** S3's answer to a preflight: 200 with the rule's headers, or 403 when no rule allows the request. */
export function s3Preflight(cors: CorsConfig, headers: IncomingHttpHeaders): AwsAnswer {
  const origin = headers.origin ?? '';
  const method = String(headers['access-control-request-method'] ?? '');
  const requested = String(headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const allowed = s3CorsHeaders(cors, origin, method);
  if (
    !origin ||
    !method ||
    !allowed['access-control-allow-origin'] ||
    !requested.every((h) => matches(cors.allowHeaders, h))
  ) {
    const refused = awsError('s3', 'accessDenied', 'CORSResponse: This CORS request is not allowed.');
    return {
      ...refused,
      body: refused.body.replace('<Code>AccessDenied</Code>', '<Code>AccessForbidden</Code>'),
    };
  }
  const headersOut: Record<string, string> = { ...allowed };
  if (requested.length > 0) headersOut['access-control-allow-headers'] = requested.join(', ');
  return { status: 200, headers: headersOut, body: '' };
}
