import { randomUUID } from 'node:crypto';
import type { Service } from './operations.ts';

/** An answer the front gives instead of the emulator's. */
export interface AwsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The refusals and failures the front produces, in each service's own wire form. */
export type AwsErrorKind =
  | 'accessDenied'
  | 'throttle'
  | 'internal'
  | 'badDigest'
  | 'invalidDigest'
  | 'invalidRequest'
  | 'signature'
  | 'missingAuth'
  | 'headersNotSigned'
  | 'expired'
  | 'preconditionFailed'
  | 'notImplemented'
  | 'entityTooLarge'
  | 'missingContentLength';

const JSON_1_0 = 'application/x-amz-json-1.0';
const JSON_1_1 = 'application/x-amz-json-1.1';

/** Error codes by service and kind: what AWS answers, as the SDK's error parsers read them. */
const CODES: Record<Service, Partial<Record<AwsErrorKind, [number, string]>>> = {
  dynamodb: {
    accessDenied: [400, 'com.amazon.coral.service#AccessDeniedException'],
    throttle: [400, 'com.amazonaws.dynamodb.v20120810#ThrottlingException'],
    internal: [500, 'com.amazonaws.dynamodb.v20120810#InternalServerError'],
    signature: [400, 'com.amazon.coral.service#InvalidSignatureException'],
    missingAuth: [400, 'com.amazon.coral.service#MissingAuthenticationTokenException'],
  },
  sqs: {
    accessDenied: [400, 'com.amazon.coral.service#AccessDeniedException;AccessDenied'],
    throttle: [400, 'com.amazonaws.sqs#ThrottlingException;Throttling'],
    internal: [500, 'com.amazonaws.sqs#InternalError;InternalError'],
  },
  s3: {
    accessDenied: [403, 'AccessDenied'],
    expired: [403, 'AccessDenied'],
    signature: [403, 'SignatureDoesNotMatch'],
    throttle: [503, 'SlowDown'],
    internal: [500, 'InternalError'],
    badDigest: [400, 'BadDigest'],
    invalidDigest: [400, 'InvalidDigest'],
    invalidRequest: [400, 'InvalidRequest'],
    headersNotSigned: [403, 'AccessDenied'],
    preconditionFailed: [412, 'PreconditionFailed'],
    notImplemented: [501, 'NotImplemented'],
    entityTooLarge: [400, 'EntityTooLarge'],
    missingContentLength: [411, 'MissingContentLength'],
  },
  events: {
    accessDenied: [400, 'AccessDeniedException'],
    throttle: [400, 'ThrottlingException'],
    internal: [500, 'InternalException'],
  },
  secretsmanager: {
    accessDenied: [400, 'AccessDeniedException'],
    signature: [400, 'InvalidSignatureException'],
    missingAuth: [400, 'MissingAuthenticationTokenException'],
    throttle: [400, 'ThrottlingException'],
    internal: [500, 'InternalServiceError'],
  },
  connections: {
    accessDenied: [403, 'AccessDeniedException'],
    throttle: [429, 'LimitExceededException'],
    internal: [500, 'InternalServerErrorException'],
  },
};

const xmlEscape = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An error answer of `service` for `kind`, with `message`. */
export function awsError(service: Service, kind: AwsErrorKind, message: string): AwsAnswer {
  const [status, code] = CODES[service][kind] ?? [500, 'InternalError'];
  const requestId = randomUUID();
  if (service === 's3') {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${xmlEscape(message)}</Message><RequestId>${requestId}</RequestId></Error>`;
    return {
      status,
      headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId },
      body: xml,
    };
  }
  if (service === 'connections') {
    return {
      status,
      headers: {
        'content-type': 'application/json',
        'x-amzn-errortype': code,
        'x-amzn-requestid': requestId,
      },
      body: JSON.stringify({ message }),
    };
  }
  // SQS's JSON protocol also names the query-protocol code, which the SDK reports as the error's name.
  const [type, queryCode] = code.split(';');
  return {
    status,
    headers: {
      'content-type': service === 'events' || service === 'secretsmanager' ? JSON_1_1 : JSON_1_0,
      'x-amzn-requestid': requestId,
      ...(queryCode && { 'x-amzn-query-error': `${queryCode};${status < 500 ? 'Sender' : 'Receiver'}` }),
    },
    body: JSON.stringify({ __type: type, message }),
  };
}
